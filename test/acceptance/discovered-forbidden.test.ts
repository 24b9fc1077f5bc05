/**
 * A Kubernetes user who may list the operators' objects but may not port-forward or read Secrets (the demo's
 * `allocation-lens-demo-no-portforward` context): discovery still finds the TAs, and the Diagnostics page names exactly
 * the permission each TA's reading lacks: `create` on `pods/portforward` for the TA whose certificate comes from files,
 * `get` on `secrets` for the TA whose certificate is the conventional Secret.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as api from "@/lib/api/schemas";
import { NO_PORTFORWARD_CONTEXT } from "@allocation-lens/demo-cluster/internal/kube/kubeconfig";
import { discoveredConfig } from "@/test/acceptance/calm";
import { startLens, waitFor, type Lens } from "@/test/acceptance/support";

describe("discovered TAs, a Kubernetes user without port-forward or secrets", () => {
  let lens: Lens;
  beforeAll(async () => {
    lens = await startLens({
      flavor: "cloudwatch",
      configure: (config) => {
        const c = discoveredConfig(config);
        const per = config.clusters[0].targetAllocators["per-node"];
        c.clusters[0].kubernetes = { ...c.clusters[0].kubernetes, context: NO_PORTFORWARD_CONTEXT };
        // the per-node TA's certificate from files: its reading needs only the port-forward
        c.clusters[0].targetAllocators = { discover: {}, "per-node": { tls: per.tls } };
        return c;
      },
    });
  });
  afterAll(async () => lens?.stop());

  it("the TA sources fail naming the verb, resource and namespace to grant; discovery itself passes", async () => {
    const d = await waitFor(
      "both TA sources failing",
      async () => {
        const v = api.diagnosticsViewSchema.parse((await lens.get("/api/v1/diagnostics")).body);
        const ta = v.checks.find((c) => c.id === "ta-reachable");
        return ta?.status === "fail" && ta.evidence.length === 2 ? v : undefined;
      },
      { timeoutMs: 20_000, intervalMs: 100 },
    );
    const ta = d.checks.find((c) => c.id === "ta-reachable")!;
    const evidence = ta.evidence.join("\n");
    expect(evidence).toContain(`${lens.cluster}/ta/per-node: forbidden`);
    expect(evidence).toContain("forbidden: the Kubernetes user may not create pods/portforward in namespace amazon-cloudwatch (grant: create on pods/portforward)");
    expect(evidence).toContain(`${lens.cluster}/ta/cluster-scraper: forbidden`);
    expect(evidence).toContain("forbidden: the Kubernetes user may not get secrets in namespace amazon-cloudwatch (grant: get on secrets)");
    expect(ta.fix).toMatch(/Kubernetes user lacks it/);
    // discovery could list what it needs: it found both TAs
    const discovery = d.checks.find((c) => c.id === "ta-discovery")!;
    expect(discovery.status).toBe("pass");
    expect(d.discovery?.found.map((f) => f.role).sort()).toEqual(["cluster-scraper", "per-node"]);
  });
});

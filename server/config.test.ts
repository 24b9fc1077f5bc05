/** The configuration `npm start -- --kubeconfig` writes: one discovered cluster, in a stable place, nothing secret. */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfigFile, writeDiscoveryConfig } from "@/server/config";

let dir: string;
beforeAll(() => void (dir = fs.mkdtempSync(path.join(os.tmpdir(), "allocation-lens-config-test-"))));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe("writeDiscoveryConfig", () => {
  it("writes one cluster named after the context, its TAs discovered, and the history at its default place", () => {
    const file = writeDiscoveryConfig({ kubeconfig: "/home/me/.kube/config", context: "arn:aws:eks:eu-west-1:1234:cluster/Prod EU", contextName: "arn:aws:eks:eu-west-1:1234:cluster/Prod EU", dir });
    expect(path.dirname(file)).toBe(dir);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    const config = loadConfigFile(file);
    expect(config.clusters).toHaveLength(1);
    expect(config.clusters[0].kubernetes).toMatchObject({ kubeconfig: "/home/me/.kube/config", context: "arn:aws:eks:eu-west-1:1234:cluster/Prod EU" });
    expect(path.basename(file)).toBe(`discovered-${config.clusters[0].name}.yaml`);
    expect(config.history.path).toBeUndefined();
  });

  it("rewrites the same file at the next start instead of a new folder each time", () => {
    const first = writeDiscoveryConfig({ contextName: "kind-dev", dir });
    fs.chmodSync(first, 0o644);
    const second = writeDiscoveryConfig({ context: "kind-dev", contextName: "kind-dev", dir });
    expect(second).toBe(first);
    expect(fs.statSync(second).mode & 0o777).toBe(0o600);
    expect(loadConfigFile(second).clusters[0].kubernetes).toMatchObject({ context: "kind-dev" });
    expect(fs.readdirSync(dir).filter((f) => f.includes("kind-dev"))).toEqual([path.basename(first)]);
  });
});

/**
 * Discovered TAs, reached through the Kubernetes API (the cloudwatch demo: two TAs behind port-forwards with mTLS, the
 * client certificate read from the demo's Secret): a tunnel broken by the TA pod's replacement marks the source stale
 * and recovers within two polls; the certificate and key read from the Secret appear in no answer, log line, file or
 * history row.
 */
import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import YAML from "yaml";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as api from "@/lib/api/schemas";
import { discoveredConfig } from "@/test/acceptance/calm";
import { inject, startLens, truthShows, waitFor, withinTwoPolls, type Lens } from "@/test/acceptance/support";
import { captureOutput, type Captured } from "@allocation-lens/test-support/capture";

const ROUTES = ["/api/v1/clusters", "/api/v1/summary", "/api/v1/nodes", "/api/v1/collectors", "/api/v1/monitors", "/api/v1/targets?limit=1000", "/api/v1/lost", "/api/v1/diagnostics", "/api/v1/churn", "/metrics", "/api/healthz", "/api/readyz"];

/** Pieces of a PEM file that would betray it: its base64 body (whole and as lines), and the PEM in base64 (Secret data). */
function telltales(pemFile: string): string[] {
  const pem = fs.readFileSync(pemFile, "utf8");
  const body = pem.split("\n").filter((l) => l && !l.startsWith("-----"));
  return [body.join(""), ...body.filter((l) => l.length >= 40), Buffer.from(pem).toString("base64").slice(0, 60)];
}

const isReady = (pod: { status?: unknown } | undefined) =>
  ((pod?.status as { conditions?: { type: string; status: string }[] } | undefined)?.conditions ?? []).some((c) => c.type === "Ready" && c.status === "True");

describe("discovered cloudwatch TAs through the Kubernetes API", () => {
  let lens: Lens;
  let output: Captured | undefined;
  beforeAll(async () => {
    output = captureOutput({ streams: true });
    // rediscovery every 5 s (the least allowed), so that a TA that goes or comes is seen within the test
    lens = await startLens({
      flavor: "cloudwatch",
      configure: (config) => {
        const c = discoveredConfig(config);
        c.clusters[0].targetAllocators = { discover: { intervalSeconds: 5 } };
        return c;
      },
    });
  });
  afterAll(async () => {
    await lens?.stop();
    output?.restore();
  });

  it("logs one line naming what discovery found, and reads both TAs through port-forwards", async () => {
    const lines = output!.lines.filter((l) => l.includes("discovered 2 Target Allocators"));
    expect(lines.length).toBeGreaterThanOrEqual(1);
    expect(lines[0]).toMatch(/per-node: cloudwatch amazon-cloudwatch\/cloudwatch-agent-target-allocator \(per-node, port-forward, mTLS\)/);
    expect(lines[0]).toMatch(/cluster-scraper: cloudwatch amazon-cloudwatch\/cloudwatch-agent-cluster-scraper-target-allocator \(consistent-hashing, port-forward, mTLS\)/);
    const s = api.summaryViewSchema.parse((await lens.get("/api/v1/summary")).body);
    expect(s.sources.filter((x) => x.state !== "ok")).toEqual([]);
    expect(s.sources.map((x) => x.source)).toContain(`${lens.cluster}/discovery`);
    // the demo's API saw the tunnels
    expect(Object.entries(lens.demo.kube.stats()).filter(([k]) => /portforward/.test(k)).length).toBeGreaterThan(0);
  });

  it("the TA pod replaced while a reading is in flight: the source goes stale with its last data, and recovers within two polls", async () => {
    const before = (await lens.truth()).taPods["per-node"];
    expect(before).toBeTruthy();
    // as a Deployment's new pod: Running at once, Ready only after its container started
    await inject(lens, { fault: "ta-pod-replaced", role: "per-node", readyAfterMs: 4000 });
    const { truth } = await truthShows(lens, "a new TA pod", (t) => Boolean(t.taPods["per-node"]) && t.taPods["per-node"] !== before);
    expect(truth.taPods["per-node"]).not.toBe(before);
    const stale = await waitFor(
      "the per-node TA source stale after its tunnel broke",
      async () => {
        const s = api.summaryViewSchema.parse((await lens.get("/api/v1/summary")).body);
        const src = s.sources.find((x) => x.source === `${lens.cluster}/ta/per-node`);
        return src?.state === "stale" ? { s, src } : undefined;
      },
      { timeoutMs: 15_000, intervalMs: 50 },
    );
    expect(stale.src.error?.kind).toBe("network");
    // its last good data stays on screen
    expect(stale.s.roles["per-node"]?.targets).toBeGreaterThan(0);
    expect(stale.src.error?.message).toMatch(/Ready/);
    const { at: readyAt } = await truthShows(lens, "the new TA pod Ready", () => isReady(lens.demo.store.get("pods", "amazon-cloudwatch", truth.taPods["per-node"]!)), 15_000);
    const figures = await withinTwoPolls(lens, "the per-node TA read again through the new pod", readyAt, async () => {
      const s = api.summaryViewSchema.parse((await lens.get("/api/v1/summary")).body);
      return s.sources.every((x) => x.state === "ok") && s;
    });
    expect(figures.roles["per-node"]?.targets).toBe(stale.s.roles["per-node"]?.targets);
  });

  it("a TA whose ConfigMap goes is dropped at the next discovery, and read again when it comes back", async () => {
    const ns = "amazon-cloudwatch";
    const name = "cloudwatch-agent-cluster-scraper-target-allocator";
    const roles = async () => api.clustersViewSchema.parse((await lens.get("/api/v1/clusters")).body).clusters[0].roles.map((r) => r.role).sort();
    expect(await roles()).toEqual(["cluster-scraper", "per-node"]);
    const cm = lens.demo.store.get("configmaps", ns, name);
    expect(cm).toBeTruthy();
    lens.demo.store.remove("configmaps", ns, name);
    await waitFor("the cluster-scraper TA gone from the cluster's roles", async () => ((await roles()).join() === "per-node" ? true : undefined), { timeoutMs: 20_000, intervalMs: 100 });
    const s = api.summaryViewSchema.parse((await lens.get("/api/v1/summary")).body);
    expect(Object.keys(s.roles)).toEqual(["per-node"]);
    expect(s.sources.map((x) => x.source)).not.toContain(`${lens.cluster}/ta/cluster-scraper`);
    const { metadata, ...rest } = cm!;
    lens.demo.store.upsert("configmaps", { ...rest, metadata: { name: metadata.name, namespace: metadata.namespace, labels: metadata.labels } });
    await waitFor(
      "the cluster-scraper TA read again",
      async () => {
        const v = api.summaryViewSchema.parse((await lens.get("/api/v1/summary")).body);
        return v.roles["cluster-scraper"] && v.sources.every((x) => x.state === "ok") ? v : undefined;
      },
      { timeoutMs: 20_000, intervalMs: 100 },
    );
  });

  it("no certificate or key read from the Secret appears in an answer, /metrics, a log line, a file or a history row", async () => {
    const info = lens.demo.info.targetAllocators["per-node"]!;
    const secrets = [...telltales(info.cert!), ...telltales(info.key!)];
    expect(secrets.length).toBeGreaterThan(4);
    await lens.nextSnapshot();
    const bodies: string[] = [];
    for (const p of ROUTES) bodies.push((await lens.get(p)).text);
    const snapshot = JSON.stringify(lens.latest(), (_k, v) => (v instanceof Map ? [...v] : v));
    const config = lens.demo.info.dashboardConfig;
    const history = YAML.parse(fs.readFileSync(config, "utf8")).history.path as string;
    const db = new Database(history, { readonly: true, fileMustExist: true });
    try {
      expect((db.prepare("SELECT count(*) AS n FROM poll_summaries").get() as { n: number }).n).toBeGreaterThan(2);
    } finally {
      db.close();
    }
    // the files the dashboard writes: its history (and side files) and its configuration
    const files = [history, `${history}-wal`, `${history}-shm`, `${history}-journal`, config].filter((f) => fs.existsSync(f));
    expect(files.map((f) => path.basename(f))).toContain(path.basename(history));
    const haystacks: [string, string][] = [
      ...bodies.map((b, i) => [`response ${ROUTES[i]}`, b] as [string, string]),
      ["snapshot", snapshot],
      ["logs", output!.lines.join("\n")],
      ...files.map((f) => [f, fs.readFileSync(f).toString("latin1")] as [string, string]),
    ];
    for (const [where, text] of haystacks) for (const s of secrets) expect(text.includes(s), `${where} holds part of the client certificate or key`).toBe(false);
  });
});

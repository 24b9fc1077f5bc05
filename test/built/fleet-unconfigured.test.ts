/**
 * The fleet pages of a dashboard without a fleet in its configuration say so in their HTML, and ask nothing: no preload
 * of /api/v1/fleet, whose 404 the browser would report as a failed resource on every load. The built server entry on a
 * demo cluster's configuration, which has no fleet section.
 *
 * Needs the build (skipped with a warning without it, a failure under CI).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { startDemoCluster, type DemoCluster } from "@allocation-lens/demo-cluster/internal/cluster";
import { BUILT, demoConfig, replicaApi, startReadyReplica, type Replica } from "./replica-process";

describe.skipIf(!BUILT)("fleet pages without a fleet configured", () => {
  let demo: DemoCluster;
  let replica: Replica;
  let dir: string;

  beforeAll(async () => {
    demo = await startDemoCluster({ pollInterval: 3, nodes: 3, seed: 11 });
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "lens-no-fleet-"));
    const config = demoConfig(demo.info);
    expect(config.fleet).toBeUndefined();
    replica = await startReadyReplica("lens-a", { ...config, history: { path: path.join(dir, "history.sqlite") } }, dir);
  }, 120_000);

  afterAll(async () => {
    await replica?.proc.kill();
    await demo?.close();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it.each(["/fleet", "/embed/fleet"])("%s says so in its HTML and preloads no fleet answer", async (page) => {
    const html = await replicaApi(replica, page);
    expect(html.status).toBe(200);
    expect(html.text).toContain("No fleet is configured");
    // headed as the fleet page is (a heading of its own on the page, a title in the embed)
    expect(html.text).toMatch(page === "/fleet" ? /<h1[^>]*>Fleet<\/h1>/ : /<strong[^>]*>Fleet<\/strong>/);
    const preloads = [...html.text.matchAll(/<link\b[^>]*>/g)].map(([tag]) => tag).filter((tag) => /\brel="preload"/.test(tag));
    expect(preloads.filter((tag) => tag.includes("/api/v1/fleet"))).toEqual([]);
    // the API still answers 404 for a client that asks
    expect((await replicaApi(replica, "/api/v1/fleet")).status).toBe(404);
  });
});

/**
 * A replica whose standard output and error lose their reader (its parent died: a killed test runner, a supervisor gone)
 * stops at its next log line, as on SIGTERM, instead of logging the failed write to the same closed stream for ever at
 * 70 % of a core (server/inbound/closed-output.ts). The log line here is the Lease's: the built server entry with `lease`
 * on a demo cluster's API, the pipes closed, then the demo stopped, so that the next renewal fails and says so.
 *
 * Needs the build (skipped with a warning without it, a failure under CI).
 */
import { afterAll, describe, expect, it } from "vitest";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { startDemoCluster, type DemoCluster } from "@allocation-lens/demo-cluster/internal/cluster";
import { BUILT, demoConfig, startReadyReplica, type Replica } from "./replica-process";

describe.skipIf(!BUILT)("a replica whose output is closed", () => {
  let demo: DemoCluster | undefined;
  let replica: Replica | undefined;
  let dir: string | undefined;

  afterAll(async () => {
    await replica?.proc.kill();
    await demo?.close();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it("stops at its next log line, with the exit of a SIGTERM", async () => {
    demo = await startDemoCluster({ pollInterval: 3, nodes: 3, seed: 7 });
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "lens-closed-output-"));
    const tokenFile = path.join(dir, "peer-token");
    fs.writeFileSync(tokenFile, `${randomBytes(32).toString("base64url")}\n`, { mode: 0o600 });
    const cluster = demoConfig(demo.info).clusters[0];
    replica = await startReadyReplica(
      "lens-a",
      {
        clusters: [cluster],
        history: { path: path.join(dir, "history.sqlite") },
        lease: { namespace: "allocation-lens", durationSeconds: 6, renewSeconds: 0.5, peerTokenFile: tokenFile, kubernetes: cluster.kubernetes },
      },
      dir,
    );
    const child = replica.proc.child;
    // the reader goes, as when the parent dies: the replica's next write to either stream fails with EPIPE
    child.stdout!.destroy();
    child.stderr!.destroy();
    const stillServing = await fetch(`http://127.0.0.1:${replica.port}/api/readyz`);
    expect(stillServing.status).toBe(200);
    // its Kubernetes API gone, the next Lease renewal fails and is logged
    await demo.close();
    demo = undefined;
    const exit = await Promise.race([replica.proc.exited, new Promise<string>((resolve) => setTimeout(() => resolve("still running after 30 s"), 30_000))]);
    expect(exit).toBe(0);
  }, 150_000);
});

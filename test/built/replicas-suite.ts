/**
 * Two dashboard replicas on one demo cluster, as a suite that runs on the demo's own Kubernetes API (test/built) and on
 * a real kube-apiserver (test/control-plane): the built server entry (`npm run build`: .next/allocation-lens-server.mjs)
 * started twice as separate processes, with `lease` in their configuration, the cluster's API holding the Lease.
 *
 * - Exactly one replica holds the cluster's Lease; both answer every API route with the same data (the other asks the
 *   holder over the peer path).
 * - The TAs receive one poll's worth of requests per interval: what the TAs' own request counters count equals what the
 *   holder's poller says it sent (allocation_lens_ta_requests_total), and the other replica sends none.
 * - SIGKILL of the holder: the other replica holds the Lease and has polled within the Lease duration plus one interval;
 *   its API answers, sampled continuously meanwhile, never fail for longer than that (the longest failure window and
 *   the takeover figures are printed, for the README's Replicas section).
 *
 * Needs the build (skipped with a warning without it, a failure under CI).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Role } from "@/lib/model";
import type { DemoCluster } from "@allocation-lens/demo-cluster/internal/cluster";
import { waitFor, waitForHttp } from "@allocation-lens/test-support/wait";
import { parseMetrics } from "@/test/acceptance/support";
import { holderSource } from "@/lib/lease/holder-stale";
import { BUILT, demoConfig, replicaApi as api, startReplica, type Replica } from "./replica-process";

export const LEASE_NAMESPACE = "allocation-lens";
const NS = LEASE_NAMESPACE;
const DURATION_S = 6;
const RENEW_S = 0.5;
const INTERVAL_S = 3;

/** A Lease as the API server holds it (the fields the suite reads). */
export interface LeaseSeen {
  metadata: { annotations?: Record<string, string> };
  spec: { holderIdentity?: string; leaseDurationSeconds?: number; leaseTransitions?: number };
}

export interface ReplicasTarget {
  /** the demo cluster, started with simulated TAs; the Lease's namespace exists on its API when this resolves */
  start(): Promise<DemoCluster>;
  /** the Lease as the cluster's API server holds it now */
  lease(demo: DemoCluster, namespace: string, name: string): Promise<LeaseSeen | undefined>;
}

export function replicasSuite(name: string, target: ReplicasTarget): void {
  describe.skipIf(!BUILT)(name, () => {
    let demo: DemoCluster;
    let dir: string;
    let cluster: string;
    let leaseName: string;
    let token: string;
    const replicas: Replica[] = [];
    const roles = () => Object.keys(demo.taServers) as Role[];
    const taRequests = () => roles().reduce((s, r) => s + demo.taServers[r]!.requests(), 0);
    const leaseNow = () => target.lease(demo, NS, leaseName);
    const holderName = async () => (await leaseNow())?.spec.holderIdentity;
    const byName = (n: string | undefined) => replicas.find((r) => r.name === n);

    beforeAll(async () => {
      demo = await target.start();
      dir = fs.mkdtempSync(path.join(os.tmpdir(), "lens-replicas-"));
      const tokenFile = path.join(dir, "peer-token");
      token = randomBytes(32).toString("base64url");
      fs.writeFileSync(tokenFile, `${token}\n`, { mode: 0o600 });
      const base = demoConfig(demo.info);
      cluster = base.clusters[0].name;
      leaseName = `allocation-lens-${cluster}`;
      for (const name of ["lens-a", "lens-b"]) {
        const config = {
          ...base,
          clusters: base.clusters.map((c: Record<string, unknown>) => ({ ...c, pollIntervalSeconds: INTERVAL_S })),
          history: { ...(base.history ?? {}), path: path.join(dir, `${name}.sqlite`) },
          lease: { namespace: NS, durationSeconds: DURATION_S, renewSeconds: RENEW_S, peerTokenFile: tokenFile },
          // the test samples several routes many times a second from one address: above the per-client limits' defaults
          server: { ...(base.server ?? {}), requestsPerSecondPerClient: 500, requestBurstPerClient: 1000, maxRequestsPerClient: 64 },
        };
        replicas.push(await startReplica(name, config, dir));
      }
      for (const r of replicas) await waitForHttp(`http://127.0.0.1:${r.port}/api/readyz`, { timeoutMs: 90_000, child: r.proc.child, what: r.name });
    }, 180_000);

    afterAll(async () => {
      await Promise.all(replicas.map((r) => r.proc.kill()));
      await demo?.close();
      if (dir) fs.rmSync(dir, { recursive: true, force: true });
    });

    it("one replica holds the Lease; both answer every route with the same data", async () => {
      const holder = await waitFor("a holder of the Lease", () => holderName());
      expect(replicas.map((r) => r.name)).toContain(holder);
      const lease = (await leaseNow())!;
      expect(lease.spec).toMatchObject({ holderIdentity: holder, leaseDurationSeconds: DURATION_S });
      expect(lease.metadata.annotations).toEqual({ "allocation-lens.io/address": `127.0.0.1:${byName(holder)!.port}` });

      const node = (await api(replicas[0], `/api/v1/nodes?cluster=${cluster}`)).body.zones[0].nodes[0].name as string;
      const routes = ["summary", "nodes", `nodes/${node}`, "collectors", "monitors", "targets", "targets?class=local&limit=5", "lost", "churn", "diagnostics", "clusters"];
      for (const route of routes) {
        const p = `/api/v1/${route}${route.includes("?") ? "&" : "?"}cluster=${cluster}`;
        // the same poll on both: the other replica follows the holder's polls within half an interval
        const [a, b] = await waitFor(
          `the same answer to ${p} from both replicas`,
          async () => {
            const pair = await Promise.all(replicas.map((r) => api(r, p)));
            return pair.every((x) => x.status === 200) && pair[0].text === pair[1].text ? pair : undefined;
          },
          { timeoutMs: 15_000, intervalMs: 100 },
        );
        expect(a.body, p).toEqual(b.body);
        if (route !== "clusters") expect(a.body.stale.map((s: { source: string }) => s.source), p).not.toContain(holderSource(cluster));
      }
    });

    it("the peer path answers the peer token only, and only on the holder; the token is never returned or logged", async () => {
      const holder = byName(await holderName())!;
      const other = replicas.find((r) => r !== holder)!;
      const peer = async (r: Replica, auth?: string) => {
        const res = await fetch(`http://127.0.0.1:${r.port}/internal/peer/v1/meta?cluster=${cluster}`, { headers: auth ? { Authorization: auth } : {} });
        return { status: res.status, text: await res.text() };
      };
      const answers = [await peer(holder), await peer(holder, `Bearer ${token.slice(0, -1)}x`), await peer(holder, token), await peer(other, `Bearer ${token}`), await peer(holder, `Bearer ${token}`)];
      expect(answers.map((a) => a.status)).toEqual([401, 401, 401, 409, 200]);
      expect(JSON.parse(answers[3].text).error.code).toBe("not_holder");
      expect(JSON.parse(answers[4].text)).toMatchObject({ cluster, polls: expect.any(Number) });
      for (const a of answers) expect(a.text).not.toContain(token);
      for (const r of replicas) expect(r.proc.output()).not.toContain(token);
    });

    it("the TAs receive one poll's worth of requests per interval: every one from the holder's poller", async () => {
      const holder = byName(await holderName())!;
      const other = replicas.find((r) => r !== holder)!;
      const polledCount = async (r: Replica) => {
        const m = parseMetrics((await api(r, "/metrics")).text);
        return roles().reduce((s, role) => s + (m.value("allocation_lens_ta_requests_total", { cluster, role }) ?? 0), 0);
      };
      const at = async () => (await api(holder, `/api/v1/summary?cluster=${cluster}`)).body.at as number;
      // sample right after a poll (the next one is an interval away)
      const afterPoll = async (since: number) => waitFor("the next poll", async () => ((await at()) > since ? at() : undefined), { timeoutMs: 4 * INTERVAL_S * 1000, intervalMs: 50 });
      let mark = await afterPoll(await at());
      const start = { at: mark, ta: taRequests(), holder: await polledCount(holder) };
      const POLLS = 5;
      for (let i = 0; i < POLLS; i++) mark = await afterPoll(mark);
      const end = { at: mark, ta: taRequests(), holder: await polledCount(holder) };
      const served = end.ta - start.ta;
      const sent = end.holder - start.holder;
      const intervals = (end.at - start.at) / (INTERVAL_S * 1000);
      console.log(`replicas: ${served} TA requests over ${intervals.toFixed(2)} intervals (${(served / intervals).toFixed(1)} per interval; the holder sent ${sent}; one poll is ${(sent / POLLS).toFixed(1)})`);
      expect(sent).toBeGreaterThan(0);
      // the TAs' own counters: only the holder's requests (its /metrics reads each poll included in both counts)
      expect(served).toBe(sent);
      const m = parseMetrics((await api(other, "/metrics")).text);
      expect(roles().map((role) => m.value("allocation_lens_ta_requests_total", { cluster, role }) ?? 0)).toEqual(roles().map(() => 0));
    });

    it("SIGKILL of the holder: the other replica holds the Lease and polls within the duration plus one interval; answers never fail for longer", async () => {
      const holder = byName(await holderName())!;
      const survivor = replicas.find((r) => r !== holder)!;
      const routes = ["summary", "nodes", "targets", "collectors"].map((r) => `/api/v1/${r}?cluster=${cluster}`);
      for (const p of routes) expect((await api(survivor, p)).status).toBe(200);

      // sample the survivor's answers continuously
      let sampling = true;
      let failingSince: number | null = null;
      let longestFailureMs = 0;
      let samples = 0;
      let failures = 0;
      let staleMarked = 0;
      const failed = new Map<string, number>();
      let killedAt = Date.now();
      const sampler = (async () => {
        while (sampling) {
          const t = Date.now();
          const results = await Promise.all(routes.map((p) => api(survivor, p).catch(() => null)));
          samples += results.length;
          const ok = results.every((r) => r?.status === 200);
          failures += results.filter((r) => r?.status !== 200).length;
          for (const [i, r] of results.entries()) if (r?.status !== 200) failed.set(`${routes[i].split("?")[0]} ${r?.status ?? "no answer"} ${r ? r.text.slice(0, 160) : ""}`, t - killedAt);
          if (results.some((r) => r?.status === 200 && r.body.stale.some((s: { source: string }) => s.source === holderSource(cluster)))) staleMarked++;
          if (!ok) failingSince ??= t;
          else if (failingSince !== null) {
            longestFailureMs = Math.max(longestFailureMs, Date.now() - failingSince);
            failingSince = null;
          }
          await new Promise((r) => setTimeout(r, 100));
        }
      })();

      const beforeTa = taRequests();
      killedAt = Date.now();
      holder.proc.child.kill("SIGKILL");
      await holder.proc.exited;
      const boundMs = (DURATION_S + INTERVAL_S) * 1000;
      await waitFor("the survivor to hold the Lease", async () => (await holderName()) === survivor.name, { timeoutMs: boundMs + 5000, intervalMs: 50 });
      const heldAfterMs = Date.now() - killedAt;
      const polled = await waitFor(
        "the survivor's first poll",
        async () => {
          const s = await api(survivor, `/api/v1/summary?cluster=${cluster}`);
          return s.status === 200 && s.body.at > killedAt + heldAfterMs - 1000 && !s.body.stale.some((x: { source: string }) => x.source === holderSource(cluster)) ? s.body.at : undefined;
        },
        { timeoutMs: boundMs + 5000, intervalMs: 50 },
      );
      const polledAfterMs = (polled as number) - killedAt;
      // a few more samples after the switch
      const settled = Date.now();
      await waitFor("samples after the switch", () => Date.now() - settled > 1000 && samples > 0, { intervalMs: 100 });
      sampling = false;
      await sampler;
      if (failingSince !== null) longestFailureMs = Math.max(longestFailureMs, Date.now() - failingSince);

      const lease = (await leaseNow())!;
      console.log(
        `replicas: SIGKILL of ${holder.name}: ${survivor.name} held the Lease after ${heldAfterMs} ms and polled after ${polledAfterMs} ms ` +
          `(bound ${boundMs} ms); ${samples} answers sampled, ${failures} failed, longest failure window ${longestFailureMs} ms; ` +
          `${staleMarked} sample rounds marked ${holderSource(cluster)} stale; leaseTransitions ${lease.spec.leaseTransitions}`,
      );
      if (failed.size) console.log(`replicas: failed answers (last seen, ms after the kill): ${JSON.stringify([...failed])}`);
      expect(lease.spec).toMatchObject({ holderIdentity: survivor.name });
      expect(lease.metadata.annotations).toEqual({ "allocation-lens.io/address": `127.0.0.1:${survivor.port}` });
      expect(heldAfterMs).toBeGreaterThanOrEqual((DURATION_S - RENEW_S) * 1000 - 500); // not before the Lease ran out
      expect(polledAfterMs).toBeLessThanOrEqual(boundMs);
      expect(longestFailureMs).toBeLessThan(boundMs);
      expect(staleMarked).toBeGreaterThan(0); // while the holder was gone, the answers said so
      expect(taRequests()).toBeGreaterThan(beforeTa); // the survivor reads the TAs now
    });
  });
}

/**
 * The dashboard on the CloudWatch fork's real Target Allocators (per-node with its consistent-hashing fallback for the
 * per-node agent, consistent-hashing for the cluster-scraper), under the failures the product exists for. Every compared
 * figure is computed from the allocator's own raw answers, read here over its mTLS listener (real-cloudwatch.ts):
 * - mTLS: the fork refuses a TLS 1.2 client and a client without a certificate; the dashboard polls it with one;
 * - an agent made not Ready, and one crash-looping: the fork keeps the pod and every target of its node (it registers
 *   collectors on spec.nodeName alone); the dashboard shows them as ghosts within two polls, names the pod, and shows the
 *   fork's own unassigned gauge beside them at 0;
 * - an agent deleted while the fork's pod watch is partitioned, and replaced: the fork re-watches without a
 *   resourceVersion, never sees the deletion and keeps the vanished pod; the dashboard shows it as a collector Kubernetes
 *   does not know, whatever it holds as ghosts;
 * - the allocator killed and restarted: stale with the reason, the last good data kept, fresh within two polls.
 *
 * Shared by the demo's own Kubernetes API (real-cloudwatch-faults.test.ts) and a real kube-apiserver (the control plane
 * tier): `demo` adds the demo's options, e.g. `kube: "real"`.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import * as api from "@/lib/api/schemas";
import type { RealTaBinary } from "@allocation-lens/test-support/real-ta";
import { healAndSettle, inject, killedThenRecovered, nodeWithTargets, startLens, summary, truthShows, waitFor, withinTwoPolls, type Lens, type StartOptions } from "@/test/acceptance/support";
import { assignedCount, forkGet, rawFork } from "@/test/real-peers/real-cloudwatch";

export function realCloudwatchFaults(ta: RealTaBinary, demo: StartOptions = {}): void {
  describe("per-node with fallback, cluster-scraper consistent-hashing", () => {
    let lens: Lens;
    beforeAll(async () => {
      lens = await startLens({ flavor: "cloudwatch", tracking: "legacy", ta: "real", realTa: ta, ...demo });
    }, 180_000);
    afterEach(async () => {
      await healAndSettle(lens, 90_000);
      // the fork back to every agent pod of the calm world, nothing more
      await waitFor(
        "the fork to register the calm agents again",
        async () => {
          const t = await lens.truth();
          const pods = t.collectors.filter((c) => c.role === "per-node").map((c) => c.id).sort();
          return JSON.stringify([...(await rawFork(lens)).byCollector.keys()].sort()) === JSON.stringify(pods);
        },
        { timeoutMs: 90_000, intervalMs: 250 },
      );
      // and a poll that started after it: a reading in flight while the fork settled shows what it held before
      await lens.nextSnapshot();
      await lens.nextSnapshot();
      const s = await summary(lens);
      expect(s.roles["per-node"]!.classes.ghost, "no ghost once the fork and the dashboard settled").toBe(0);
    }, 200_000);
    afterAll(async () => lens?.stop());

    it("calm, over mTLS: a TLS 1.2 client and a client without a certificate are refused; the figures are the fork's own", async () => {
      for (const role of ["per-node", "cluster-scraper"] as const) {
        const tls12 = await forkGet(lens, role, "/jobs", { maxVersion: "TLSv1.2" }).then((r) => `answered ${r.status}`, (e: Error) => `refused: ${e.message}`);
        expect(tls12, `${role}: TLS 1.2`).toMatch(/^refused: .*(protocol version|alert|handshake)/i);
        const noCert = await forkGet(lens, role, "/jobs", { withCert: false }).then((r) => `answered ${r.status}`, (e: Error) => `refused: ${e.message}`);
        expect(noCert, `${role}: no client certificate`).toMatch(/^refused/);
        expect((await forkGet(lens, role, "/jobs", { minVersion: "TLSv1.3" })).status).toBe(200);
      }
      const s = api.summaryViewSchema.parse((await lens.get("/api/v1/summary")).body);
      expect(s.sources.every((x) => x.state === "ok"), JSON.stringify(s.sources)).toBe(true);
      const collectors = api.collectorsViewSchema.parse((await lens.get("/api/v1/collectors")).body);
      for (const role of ["per-node", "cluster-scraper"] as const) {
        const raw = await rawFork(lens, role);
        expect(assignedCount(raw), role).toBeGreaterThan(0);
        expect(s.roles[role]!.targets, role).toBe(assignedCount(raw));
        expect(s.roles[role]!.unassigned, role).toBe(raw.discovered - assignedCount(raw));
        const view = collectors.roles.find((r) => r.role === role)!;
        expect(view.collectors.map((c) => c.id).sort(), role).toEqual([...raw.byCollector.keys()].sort());
        for (const c of view.collectors) expect(c.targets, `${role} ${c.id}`).toBe(raw.byCollector.get(c.id)?.length ?? 0);
      }
      // the fork's job answers take the poll's fast path
      const m = await lens.metrics();
      expect(m.value("allocation_lens_poll_answers", { cluster: lens.cluster, path: "parse" })).toBe(0);
      expect(m.value("allocation_lens_poll_answers", { cluster: lens.cluster, path: "scan" })).toBeGreaterThan(0);
    }, 120_000);

    for (const [fault, what] of [
      ["collector-not-ready", "made not Ready"],
      ["collector-crashloop", "crash-looping"],
    ] as const) {
      it(`an agent ${what}: the fork keeps its node's targets; ghosts within two polls, the pod named, the fork's gauge at 0`, async () => {
        const { node, pod, targets } = nodeWithTargets(await lens.truth(), fault === "collector-not-ready" ? 1 : 2);
        expect(targets.length).toBeGreaterThan(0);
        await inject(lens, { fault, node });
        const { at } = await truthShows(lens, `${pod} not eligible`, (t) => t.collectors.find((c) => c.id === pod)?.eligible === false);
        let seen: unknown;
        const shown = await withinTwoPolls(lens, `the targets of ${pod} as ghosts`, at, async () => {
          const raw = await rawFork(lens);
          const held = raw.byCollector.get(pod) ?? [];
          const lost = api.lostViewSchema.parse((await lens.get("/api/v1/lost")).body).roles.find((r) => r.role === "per-node")!;
          const s = await summary(lens);
          seen = { held: held.length, ghosts: s.roles["per-node"]!.classes.ghost, groups: lost.groups.map((g) => [g.collector, g.targets]) };
          return held.length > 0 && s.roles["per-node"]!.classes.ghost === held.length && lost.groups.some((g) => g.collector === pod && g.targets === held.length) && { raw, held, lost, s };
        }).catch((e: Error) => {
          throw new Error(`${e.message}; last: ${JSON.stringify(seen)}`);
        });
        // the fork holds every target of the node on the pod, and counts none as unassigned
        const nodeTargets = targets.map((t) => `${t.job}|${t.address}`);
        expect(shown.held).toEqual(expect.arrayContaining(nodeTargets));
        expect(shown.raw.unassignedGauge).toBe(0);
        expect(shown.lost.unassignedReported).toBe(0);
        expect(shown.lost.unassigned).toBe(0);
        const group = shown.lost.groups.find((g) => g.collector === pod)!;
        expect(group.inKubernetes).toBe(true);
        expect(group.node).toBe(node);
        expect(group.reason.length).toBeGreaterThan(0);
        const nodes = api.nodesViewSchema.parse((await lens.get("/api/v1/nodes")).body);
        expect(nodes.zones.flatMap((z) => z.nodes).find((n) => n.name === node)!.state).toBe("ghosts");
      }, 200_000);
    }

    // A real kube-apiserver cannot partition one watch: there the deletion reaches the fork like any other, and what this
    // case shows (a pod the fork never saw go) cannot be made on purpose.
    const unseen = "an agent deleted while the fork's pod watch is partitioned, and replaced: the fork keeps the vanished pod; the dashboard says so";
    (demo.kube === "real" ? it.skip : it)(demo.kube === "real" ? `${unseen} (skipped: a real kube-apiserver cannot partition one watch)` : unseen, async () => {
      const { node, pod } = nodeWithTargets(await lens.truth(), 3);
      await inject(lens, { fault: "collector-deleted-unseen", node });
      const { truth } = await truthShows(lens, `${pod} replaced`, (t) => !t.collectors.some((c) => c.id === pod) && t.collectors.some((c) => c.role === "per-node" && c.node === node));
      const replacement = truth.collectors.find((c) => c.role === "per-node" && c.node === node)!.id;
      // the fork registers the replacement beside the pod it never saw go
      const raw = await waitFor(
        `the fork to register ${replacement} and still hold ${pod}`,
        async () => {
          const r = await rawFork(lens);
          return r.byCollector.has(replacement) && r.byCollector.has(pod) && r;
        },
        { timeoutMs: 60_000, intervalMs: 250 },
      );
      const at = Date.now();
      let seen: unknown;
      const s = await withinTwoPolls(lens, `${pod} as a collector Kubernetes does not know`, at, async () => {
        const s = api.summaryViewSchema.parse((await lens.get("/api/v1/summary")).body);
        const now = await rawFork(lens);
        seen = { taOnly: s.roles["per-node"]!.taOnlyCollectors, ghosts: s.roles["per-node"]!.classes.ghost, held: now.byCollector.get(pod)?.length };
        return s.roles["per-node"]!.taOnlyCollectors.includes(pod) && s.roles["per-node"]!.classes.ghost === (now.byCollector.get(pod)?.length ?? 0) && s;
      }).catch((e: Error) => {
        throw new Error(`${e.message}; last: ${JSON.stringify(seen)}`);
      });
      expect(s.roles["per-node"]!.unassignedReported).toBe(0);
      // two pods registered on one node: the fork's node index is a Go map, so which one its node's targets follow can
      // change at every collector update; whatever the vanished pod holds is a ghost, named as not a pod in Kubernetes
      const rows = api.targetsPageSchema.parse((await lens.get(`/api/v1/targets?collector=${encodeURIComponent(pod)}&limit=1000`)).body);
      for (const t of rows.rows) {
        expect(t.class).toBe("ghost");
        expect(t.reason).toMatch(/not a pod in Kubernetes/);
      }
      expect(raw.byCollector.get(pod)).toBeDefined();
      const diagnostics = api.diagnosticsViewSchema.parse((await lens.get("/api/v1/diagnostics")).body);
      expect(JSON.stringify(diagnostics.checks.filter((c) => c.status !== "pass"))).toContain(pod);
    }, 200_000);

    it("the allocator killed and restarted: stale with the reason, the last good data kept, fresh within two polls", async () => {
      await killedThenRecovered(lens, async () => (await forkGet(lens, "per-node", "/jobs")).status === 200);
    }, 150_000);
  });
}

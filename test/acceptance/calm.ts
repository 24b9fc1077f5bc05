/**
 * Live data plane, calm: against the calm demo, the API and /metrics agree with the demo's ground truth (GET <control>/truth):
 * every target classified, no ghosts, nothing unassigned, every monitor `ok`, per-node locality 1.0. Every response is parsed
 * with the API's zod schemas (lib/api/schemas.ts), so a view that drifts from its documented shape fails here.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Flavor, Role } from "@/lib/model";
import { TARGET_CLASSES } from "@/lib/model";
import * as api from "@/lib/api/schemas";
import { API_ROUTES } from "@/lib/api/routes";
import { allTargets, expectedClasses, startLens, zonesOf, type Lens, type Truth } from "@/test/acceptance/support";
import type { DemoOptions } from "@allocation-lens/demo-cluster/internal/cluster";

/**
 * `discovered`: the dashboard is given only the demo's Kubernetes API (`targetAllocators: auto`) and finds the TAs there,
 * reaching them through the API server (port-forward with mTLS, or the service proxy): the same figures must come out.
 */
/** The demo's generated configuration with its TA entries replaced by discovery. */
export function discoveredConfig(config: Record<string, any>): Record<string, any> { // eslint-disable-line @typescript-eslint/no-explicit-any
  return { ...config, clusters: config.clusters.map((c: Record<string, unknown>) => ({ ...c, targetAllocators: "auto" })) };
}

/**
 * `demo`: options of the demo cluster, e.g. `{ ta: "real", realTa }` to hold the dashboard to upstream's own allocator
 * (the truth is then read from that allocator's answers).
 */
export function calmSuite(flavor: Flavor, { discovered = false, demo = {} }: { discovered?: boolean; demo?: Partial<DemoOptions> } = {}): void {
  const how = flavor === "cloudwatch" ? "two TAs over mTLS" : "one TA over plain HTTP";
  const which = demo.ta === "real" ? `, upstream's real otel-allocator ${demo.realTa?.version ?? ""}` : "";
  describe(`calm demo, ${flavor} flavor (${how}${which}${discovered ? ", discovered and reached through the Kubernetes API" : ""})`, () => {
    let lens: Lens;
    let truth: Truth;
    let roles: Role[];
    beforeAll(async () => {
      lens = await startLens({ ...demo, flavor, configure: discovered ? discoveredConfig : undefined });
      truth = await lens.truth();
      roles = Object.keys(truth.unassigned) as Role[];
    });
    afterAll(async () => lens?.stop());

    const assigned = (role: Role) => truth.targets.filter((t) => t.role === role && t.collector);
    const monitorCount = () => lens.demo.store.list("servicemonitors").length + lens.demo.store.list("podmonitors").length;

    it("serves the TAs of the flavor: two over mTLS (cloudwatch) or one over plain HTTP (upstream)", async () => {
      expect(roles.sort()).toEqual(flavor === "cloudwatch" ? ["cluster-scraper", "per-node"] : ["per-node"]);
      for (const role of roles) {
        const url = lens.demo.info.targetAllocators[role]!.url;
        expect(url.startsWith(flavor === "cloudwatch" ? "https://" : "http://"), url).toBe(true);
      }
      const r = await lens.get("/api/v1/clusters");
      expect(r.status).toBe(200);
      const clusters = api.clustersViewSchema.parse(r.body);
      expect(clusters.clusters[0].roles.map((x) => x.role).sort()).toEqual(roles);
      expect(clusters.clusters[0].roles.every((x) => x.flavor === flavor)).toBe(true);
      expect(clusters.fleet).toBe(false);
      // no fleet configured: a clear 404, not an empty fleet
      const fleet = await lens.get("/api/v1/fleet");
      expect(fleet.status).toBe(404);
      expect(api.apiErrorSchema.parse(fleet.body).error).toMatchObject({ code: "fleet_not_configured", message: expect.stringContaining("add a fleet section") });
    });

    it("summary: every target classified as the truth says, no ghost, nothing unassigned, every monitor ok, per-node locality 1.0", async () => {
      const r = await lens.get("/api/v1/summary");
      expect(r.status).toBe(200);
      const s = api.summaryViewSchema.parse(r.body);
      expect(s.stale).toEqual([]);
      expect(s.sources.every((x) => x.state === "ok"), JSON.stringify(s.sources)).toBe(true);
      const classes = expectedClasses(truth, zonesOf(lens.demo));
      expect(Object.keys(s.roles).sort()).toEqual(roles);
      for (const role of roles) {
        const rs = s.roles[role]!;
        expect(rs.flavor).toBe(flavor);
        expect(rs.targets, role).toBe(assigned(role).length);
        expect(rs.targets).toBeGreaterThan(0);
        expect(TARGET_CLASSES.reduce((n, c) => n + rs.classes[c], 0)).toBe(rs.targets);
        expect(rs.classes, role).toEqual(classes[role]);
        expect(rs.classes.ghost).toBe(0);
        expect(rs.unassigned, role).toBe(truth.unassigned[role]);
        expect(rs.unassigned).toBe(0);
        expect(rs.collectorsEligible).toBe(truth.collectors.filter((c) => c.role === role && c.eligible).length);
        expect(rs.collectorsTotal).toBe(truth.collectors.filter((c) => c.role === role).length);
        expect(rs.drift).toBe(0);
        expect(rs.taOnlyCollectors).toEqual([]);
        expect(rs.missingFromTa).toEqual([]);
      }
      expect(s.roles["per-node"]!.localityRatio).toBe(1);
      expect(s.duplicates).toBe(0);
      expect(s.nodes.total).toBe(lens.demo.store.list("nodes").length);
      expect(s.nodes.byState.ghosts + s.nodes.byState.no_collector + s.nodes.byState.degraded).toBe(0);
    });

    it("targets: the rows are exactly the truth's assignments, each with one class", async () => {
      const rows = await allTargets(lens);
      const key = (x: { role: string; job: string; address: string; collector: string | null }) => `${x.role}|${x.job}|${x.address}|${x.collector}`;
      expect(rows.map(key).sort()).toEqual(truth.targets.filter((t) => t.collector).map(key).sort());
      expect(rows.every((t) => t.class !== "ghost")).toBe(true);
      const page = await lens.get("/api/v1/targets?role=per-node&class=ghost,cross_zone,cross_node&limit=5");
      expect(api.targetsPageSchema.parse(page.body).matched).toBe(0);
      const first = await lens.get("/api/v1/targets?limit=3&sort=address");
      const p = api.targetsPageSchema.parse(first.body);
      expect(p.rows).toHaveLength(3);
      expect(p.total).toBe(truth.targets.filter((t) => t.collector).length);
      const bad = await lens.get<{ error: { code: string; message: string } }>("/api/v1/targets?class=bogus");
      expect(bad.status).toBe(400);
      expect(api.apiErrorSchema.parse(bad.body).error.message).toMatch(/class/);
    });

    it("nodes: every node's per-node targets are local, the zone flows stay in their zone", async () => {
      const r = await lens.get("/api/v1/nodes");
      expect(r.status).toBe(200);
      const v = api.nodesViewSchema.parse(r.body);
      const nodes = v.zones.flatMap((z) => z.nodes);
      expect(nodes).toHaveLength(lens.demo.store.list("nodes").length);
      const perNode = expectedClasses(truth, zonesOf(lens.demo))["per-node"]!;
      expect(v.flowRole).toBe("per-node");
      expect(v.totals).toMatchObject({ local: perNode.local, crossNode: 0, crossZone: 0, ghost: 0, nodeless: perNode.nodeless });
      for (const n of nodes) {
        const located = truth.targets.filter((t) => t.role === "per-node" && t.node === n.name).length;
        expect(n.targets.local, n.name).toBe(located);
        expect(n.targets.cross_node + n.targets.cross_zone + n.targets.ghost, n.name).toBe(0);
        expect(n.scrapedElsewhere).toBe(0);
        // per-node locality of the node: 1.0
        if (located) expect(n.targets.local / (n.targets.local + n.targets.cross_node + n.targets.cross_zone)).toBe(1);
        expect(["healthy", "idle"]).toContain(n.state);
      }
      for (const f of v.zoneFlows) if (f.from !== "(no node)") expect(f.to, JSON.stringify(f)).toBe(f.from);
      const one = nodes.find((n) => n.targets.local > 0)!;
      const d = await lens.get(`/api/v1/nodes/${encodeURIComponent(one.name)}`);
      expect(d.status).toBe(200);
      const detail = api.nodeDetailViewSchema.parse(d.body);
      expect(detail.targets.length).toBe(one.targets.local);
      expect(detail.targets.every((t) => t.class === "local" || t.role !== "per-node")).toBe(true);
      expect((await lens.get("/api/v1/nodes/no-such-node")).status).toBe(404);
    });

    it("collectors: the eligible pods are the truth's, their targets add up", async () => {
      const r = await lens.get("/api/v1/collectors");
      const v = api.collectorsViewSchema.parse(r.body);
      for (const role of roles) {
        const rv = v.roles.find((x) => x.role === role)!;
        const want = truth.collectors.filter((c) => c.role === role);
        expect(rv.collectors.map((c) => c.id).sort()).toEqual(want.map((c) => c.id).sort());
        for (const c of rv.collectors) {
          const t = want.find((x) => x.id === c.id)!;
          expect(c.eligible, c.id).toBe(t.eligible);
          expect(c.node).toBe(t.node);
          expect(c.targets, c.id).toBe(truth.targets.filter((x) => x.role === role && x.collector === c.id).length);
          expect(c.inKubernetes && c.inTa).toBe(true);
        }
        expect(rv.taOnly).toEqual([]);
        expect(rv.notEligibleInTa).toEqual([]);
      }
    });

    it("lost: nothing unassigned and no ghost, the live count beside the TA's gauge", async () => {
      const r = await lens.get("/api/v1/lost");
      expect(r.status).toBe(200);
      const v = api.lostViewSchema.parse(r.body);
      expect(v.roles.map((x) => x.role).sort()).toEqual(roles);
      for (const x of v.roles) {
        expect(x.flavor).toBe(flavor);
        expect(x.unassigned, x.role).toBe(truth.unassigned[x.role]);
        expect(x.assigned, x.role).toBe(assigned(x.role).length);
        expect(x.ghosts).toBe(0);
        expect(x.groups).toEqual([]);
      }
    });

    it("every documented route answers in the shape of its schema (lib/api/routes.ts)", async () => {
      const node = api.nodesViewSchema.parse((await lens.get("/api/v1/nodes")).body).zones[0].nodes[0].name;
      for (const [path, doc] of Object.entries(API_ROUTES)) {
        // no fleet is configured here (its 404 is checked above); test/integration/fleet.test.ts parses real fleet answers
        if (path === "/api/v1/fleet") continue;
        const r = await lens.get(path.replace("{name}", encodeURIComponent(node)));
        expect(r.status, path).toBe(200);
        const parsed = doc.ok.safeParse(r.body);
        expect(parsed.success ? [] : parsed.error.issues, path).toEqual([]);
      }
    });

    it("monitors: every ServiceMonitor and PodMonitor is ok, owned by the TA its annotation routes it to (API and /metrics)", async () => {
      const r = await lens.get("/api/v1/monitors");
      const v = api.ownershipViewSchema.parse(r.body);
      expect(v.available).toBe(true);
      expect(v.monitors).toHaveLength(monitorCount());
      if (flavor === "cloudwatch") {
        // both roles own something: the routing annotation is in use in the demo world
        expect(new Set(v.monitors.map((m) => m.expectedRole))).toEqual(new Set(["per-node", "cluster-scraper"]));
      }
      const s = api.summaryViewSchema.parse((await lens.get("/api/v1/summary")).body);
      const m = await lens.metrics();
      const counts = Object.fromEntries(["ok", "double", "orphaned", "misrouted"].map((o) => [o, m.value("allocation_lens_monitors", { cluster: lens.cluster, ownership: o })]));
      for (const x of v.monitors) {
        expect(x.ownership, `${x.kind} ${x.namespace}/${x.name}`).toBe("ok");
        expect(x.holders).toEqual([x.expectedRole]);
      }
      expect(s.monitors).toEqual({ ok: monitorCount(), double: 0, orphaned: 0, misrouted: 0 });
      expect(counts).toEqual({ ok: monitorCount(), double: 0, orphaned: 0, misrouted: 0 });
    });

    it("diagnostics and churn answer in their documented shape; no check fails on a calm cluster", async () => {
      const d = await lens.get("/api/v1/diagnostics");
      expect(d.status).toBe(200);
      const v = api.diagnosticsViewSchema.parse(d.body);
      expect(v.checks.length).toBeGreaterThan(3);
      expect(v.checks.filter((c) => c.status === "fail").map((c) => `${c.id}: ${c.summary}`)).toEqual([]);
      const c = await lens.get("/api/v1/churn");
      expect(c.status).toBe(200);
      const churn = api.churnViewSchema.parse(c.body);
      expect(churn.backend.backend).toBe("sqlite");
      expect(churn.series.some((p) => p.localityRatio["per-node"] === 1)).toBe(true);
      // what discovery found is on the page: each TA, how it is reached; nothing dropped in the demo
      if (!discovered) expect(v.discovery).toBeNull();
      else {
        expect(v.discovery?.found.map((f) => [f.role, f.flavor, f.reach, f.mtls]).sort()).toEqual(
          roles.map((r) => [r, flavor, flavor === "cloudwatch" ? "port-forward" : "service-proxy", flavor === "cloudwatch"]).sort(),
        );
        for (const f of v.discovery!.found) expect(f.strategy).toBe(f.role === "per-node" ? "per-node" : "consistent-hashing");
        expect(v.discovery?.dropped).toEqual([]);
        expect(v.discovery?.problems).toEqual([]);
      }
    });

    it("/metrics agrees with the truth", async () => {
      const m = await lens.metrics();
      const cluster = lens.cluster;
      const classes = expectedClasses(truth, zonesOf(lens.demo));
      for (const role of roles) {
        for (const cls of TARGET_CLASSES) expect(m.value("allocation_lens_targets", { cluster, role, class: cls }), `${role} ${cls}`).toBe(classes[role]![cls]);
        expect(m.value("allocation_lens_unassigned_targets", { cluster, role })).toBe(0);
        expect(m.value("allocation_lens_collectors", { cluster, role, state: "ready" })).toBe(truth.collectors.filter((c) => c.role === role && c.eligible).length);
        expect(m.value("allocation_lens_collectors", { cluster, role, state: "not_ready" })).toBe(0);
      }
      expect(m.value("allocation_lens_targets", { cluster, role: "per-node", class: "local" })).toBeGreaterThan(0);
      expect(m.value("allocation_lens_locality_ratio", { cluster, role: "per-node" })).toBe(1);
      expect(m.value("allocation_lens_nodes_without_collector", { cluster })).toBe(0);
      const up = m.all("allocation_lens_source_up", { cluster });
      expect(up.length).toBe(roles.length + roles.length + 3 + (discovered ? 1 : 0)); // <cluster>/discovery when discovered; TAs, agent pods per role, nodes, two monitor CRDs
      expect(up.filter((s) => s.value !== 1)).toEqual([]);
      expect(m.value("allocation_lens_poll_duration_seconds", { cluster })).toBeGreaterThan(0);
      // the demo TAs write the compact JSON of a real TA: every job answer goes through the scanner, none to JSON.parse
      expect(m.value("allocation_lens_poll_answers", { cluster, path: "parse" })).toBe(0);
      expect(m.value("allocation_lens_poll_answers", { cluster, path: "scan" })).toBe(new Set(truth.targets.map((t) => `${t.role} ${t.job}`)).size);
      for (const role of roles) {
        expect(m.value("allocation_lens_readiness_transitions_total", { cluster, role })).toBe(0);
        expect(m.value("allocation_lens_target_reassignments_total", { cluster, role })).toBe(0);
      }
    });
  });
}

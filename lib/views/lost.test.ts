import { roleSummary, targetRow } from "@/test/fixtures/rows";
import { describe, expect, it } from "vitest";
import type { CollectorRow, TargetRow } from "@/lib/analysis/types";
import { groupGhosts, lostListState, toLostView, type LostRole } from "./lost";

const target = targetRow;

const collector = (over: Partial<CollectorRow>): CollectorRow => ({
  role: "per-node",
  id: "agent-1",
  node: "n1",
  zone: "a",
  inKubernetes: true,
  inTa: true,
  eligible: true,
  reason: null,
  phase: "Running",
  ready: true,
  restarts: 0,
  targets: 0,
  share: 0,
  ...over,
});

const summary = roleSummary;

const ghost = (over: Partial<TargetRow>) => target({ class: "ghost", reason: "not Ready", ...over });

const targets: TargetRow[] = [
  target({}),
  ghost({ collector: "agent-2", collectorNode: "n2", node: "n2", address: "10.0.0.2:10250" }),
  ghost({ collector: "agent-2", collectorNode: "n2", node: "n2", address: "10.0.2.7:8080", job: "serviceMonitor/shop/cart/0" }),
  ghost({ collector: "agent-2", collectorNode: "n2", node: null, address: "api.example.com:443", job: "blackbox" }),
  ghost({ collector: "agent-gone", collectorNode: null, collectorZone: null, node: "n3", reason: "not a pod in Kubernetes (deleted or never existed)" }),
  ghost({ role: "cluster-scraper", collector: "cs-1", collectorNode: "n1", node: null, reason: "phase Pending" }),
];

const collectors: CollectorRow[] = [
  collector({}),
  collector({ id: "agent-2", node: "n2", eligible: false, reason: "not Ready", ready: false, restarts: 4 }),
  collector({ role: "cluster-scraper", id: "cs-1", eligible: false, reason: "phase Pending", phase: "Pending" }),
];

describe("groupGhosts", () => {
  it("groups ghost targets by role and collector, most targets first, counting jobs and target nodes", () => {
    const g = groupGhosts(targets, collectors);
    expect(g.map((x) => [x.role, x.collector, x.targets])).toEqual([
      ["per-node", "agent-2", 3],
      ["cluster-scraper", "cs-1", 1],
      ["per-node", "agent-gone", 1],
    ]);
    expect(g[0]).toMatchObject({ node: "n2", reason: "not Ready", jobs: 3, targetNodes: 1, restarts: 4, inKubernetes: true });
  });

  it("keeps a collector Kubernetes no longer knows, with the target's reason and no node", () => {
    const gone = groupGhosts(targets, collectors).find((x) => x.collector === "agent-gone")!;
    expect(gone).toMatchObject({ node: null, inKubernetes: false, phase: null });
    expect(gone.reason).toMatch(/not a pod/);
  });

  it("ignores every target that is not a ghost", () => {
    expect(groupGhosts([target({}), target({ class: "cross_zone" })], collectors)).toEqual([]);
  });
});

describe("toLostView", () => {
  const fresh = { at: 1, pollIntervalMs: 5000, stale: [] };

  it("lists roles in order with their ghosts and both unassigned numbers", () => {
    const v = toLostView(
      {
        cluster: "c",
        roles: { "cluster-scraper": summary({ role: "cluster-scraper", unassigned: 2, unassignedReported: 2 }), "per-node": summary({ unassigned: 0, unassignedReported: 7 }) },
        collectors,
        targets,
      },
      fresh,
    );
    expect(v.roles.map((r) => r.role)).toEqual(["per-node", "cluster-scraper"]);
    expect(v.roles[0]).toMatchObject({ ghosts: 4, unassigned: 0, unassignedReported: 7, reportedDiffers: true, assigned: 6 });
    expect(v.roles[0].groups.map((g) => g.collector)).toEqual(["agent-2", "agent-gone"]);
    expect(v.roles[1]).toMatchObject({ ghosts: 1, reportedDiffers: false });
    expect(v.at).toBe(1);
  });

  it("does not call unknown unassigned numbers a disagreement", () => {
    const v = toLostView({ cluster: "c", roles: { "per-node": summary({ unassigned: null, unassignedReported: 3 }) }, collectors: [], targets: [] }, fresh);
    expect(v.roles[0]).toMatchObject({ unassigned: null, reportedDiffers: false, ghosts: 0, groups: [] });
  });
});

describe("lostListState", () => {
  const role = (over: Partial<LostRole>): LostRole => ({
    role: "per-node",
    flavor: "cloudwatch",
    taReady: true,
    unassigned: 0,
    unassignedReported: 0,
    reportedDiffers: false,
    assigned: 10,
    ghosts: 0,
    groups: [],
    ...over,
  });
  const groups = groupGhosts(targets, collectors);
  const pn = role({ ghosts: 5, groups: groups.filter((g) => g.role === "per-node") });
  const cs = role({ role: "cluster-scraper" });

  it("lists the groups of the chosen role with their target count", () => {
    expect(lostListState({ roles: [pn, cs] }, null)).toMatchObject({ kind: "groups", targets: 4 });
    expect(lostListState({ roles: [pn, cs] }, "per-node")).toMatchObject({ kind: "groups" });
  });

  it("tells nothing-there from filtered-to-nothing", () => {
    expect(lostListState({ roles: [role({}), cs] }, null)).toEqual({ kind: "none" });
    expect(lostListState({ roles: [pn, cs] }, "cluster-scraper")).toEqual({ kind: "filtered", hiddenTargets: 4 });
  });

  it("never calls a TA that did not answer free of ghosts", () => {
    const down = role({ taReady: null, assigned: 0 });
    expect(lostListState({ roles: [down, cs] }, null)).toEqual({ kind: "unknown", roles: ["per-node"] });
    expect(lostListState({ roles: [down, cs] }, "cluster-scraper")).toEqual({ kind: "none" });
  });
});

import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Role } from "@/lib/model";
import type { CollectorRow, TargetRow } from "@/lib/analysis/types";
import type { PodEvent } from "@/server/poller";
import type { Snapshot } from "@/lib/snapshot";
import { attachHistory, type CounterLike } from "@/server/history/attach";
import { POD_SERIES_TTL_MS } from "@/lib/metrics/pod-series";
import { MemoryHistory } from "@/server/history/memory";
import { SqliteHistory } from "@/server/history/sqlite";
import { churnTotals, historyFor, startHistory, stopHistory } from "@/server/history/registry";

class FakePoller {
  readonly pods = new Set<(e: PodEvent) => void>();
  readonly snaps = new Set<(s: Snapshot, previous: Snapshot | undefined) => void>();
  last: Snapshot | undefined;
  constructor(readonly config: { name: string }) {}
  onPodEvent(l: (e: PodEvent) => void) {
    this.pods.add(l);
    return () => this.pods.delete(l);
  }
  onSnapshot(l: (s: Snapshot, previous: Snapshot | undefined) => void) {
    this.snaps.add(l);
    return () => this.snaps.delete(l);
  }
  pod(at: number, type: PodEvent["type"], name: string, ready = true, role: Role = "per-node") {
    const pod = { metadata: { name, namespace: "agents" }, spec: { nodeName: `node-${name}` }, status: { phase: "Running", conditions: [{ type: "Ready", status: ready ? "True" : "False" }] } };
    for (const l of this.pods) l({ at, role, type, pod } as PodEvent);
  }
  snapshot(at: number, targets: [string, string][], o: { podsListed?: boolean; collectors?: Partial<CollectorRow>[] } = {}) {
    const s = {
      cluster: this.config.name,
      at,
      pollMs: 20,
      pollIntervalMs: 15_000,
      sources: [{ source: `${this.config.name}/kube/pods/per-node`, state: "ok", lastSuccess: o.podsListed === false ? null : at, lastAttempt: null, latencyMs: null, error: null }],
      analysis: {
        roles: {
          "per-node": {
            classes: { ghost: 1, nodeless: 0, local: targets.length - 1, cross_zone: 0, cross_node: 0 },
            unassigned: 2,
            localityRatio: 1,
            collectorsEligible: 2,
            collectorsTotal: 3,
          },
        },
        collectors: (o.collectors ?? []).map((c) => ({ role: "per-node", inKubernetes: true, eligible: true, node: null, ...c })),
        targets: targets.map(([address, collector]) => ({ role: "per-node", job: "j", address, node: "node-1", collector }) as TargetRow),
      },
    } as unknown as Snapshot;
    const previous = this.last;
    this.last = s;
    for (const l of this.snaps) l(s, previous);
  }
}

class FakeCounter implements CounterLike {
  readonly values = new Map<string, number>();
  inc(labels: { cluster: string; role: string }, value = 1) {
    const k = `${labels.cluster}/${labels.role}`;
    this.values.set(k, (this.values.get(k) ?? 0) + value);
  }
}

const all = { from: 0, to: Number.MAX_SAFE_INTEGER };
const silent = () => {};

describe("attachHistory", () => {
  it("records transitions after the baseline, reassignments and one summary per poll", () => {
    const poller = new FakePoller({ name: "c1" });
    const store = new MemoryHistory(7);
    const counters = { readinessTransitions: new FakeCounter(), targetReassignments: new FakeCounter() };
    const a = attachHistory(poller, store, { counters, log: silent });
    poller.pod(1, "add", "a");
    poller.pod(2, "add", "b", false);
    poller.snapshot(10, [["t1", "a"], ["t2", "a"]]); // first poll: the baseline is over
    poller.pod(11, "update", "b", true);
    poller.pod(12, "update", "a", true); // no change
    poller.pod(13, "add", "c", false);
    poller.snapshot(20, [["t1", "a"], ["t2", "b"], ["t3", "c"]]);
    expect(store.readiness("c1", all, 10).map((e) => [e.pod, e.kind])).toEqual([
      ["c", "added"],
      ["b", "became_ready"],
    ]);
    expect(store.polls("c1", all).map((p) => p.at)).toEqual([10, 20]);
    expect(store.polls("c1", all)[1].roles["per-node"]).toMatchObject({ ghosts: 1, unassigned: 2, collectorsReady: 2, collectorsTotal: 3 });
    const r = store.reassignments("c1", all);
    expect(r).toHaveLength(1);
    expect(r[0]).toMatchObject({ at: 20, total: 1, byCollector: [{ role: "per-node", from: "a", to: "b", count: 1 }] });
    expect(a.totals()).toEqual({ "per-node": { readinessTransitions: 2, reassignments: 1 } });
    expect(counters.readinessTransitions.values.get("c1/per-node")).toBe(2);
    expect(counters.targetReassignments.values.get("c1/per-node")).toBe(1);
    a.detach();
    poller.pod(30, "delete", "c");
    expect(a.totals()["per-node"]!.readinessTransitions).toBe(2);
  });

  it("feeds the per-pod readiness counter: created at 0 when first seen, flips only, removed some minutes after the pod is gone", () => {
    const poller = new FakePoller({ name: "c1" });
    const calls: string[] = [];
    const values = new Map<string, number>();
    const key = (l: { role: string; pod: string; node: string }) => `${l.role}/${l.pod}/${l.node}`;
    const collectorTransitions = {
      inc(l: { cluster: string; role: string; pod: string; node: string }, v = 1) {
        values.set(key(l), (values.get(key(l)) ?? 0) + v);
        calls.push(`inc ${key(l)} ${v}`);
      },
      remove(l: { cluster: string; role: string; pod: string; node: string }) {
        values.delete(key(l));
        calls.push(`remove ${key(l)}`);
      },
    };
    const counters = { readinessTransitions: new FakeCounter(), targetReassignments: new FakeCounter(), collectorTransitions };
    const a = attachHistory(poller, new MemoryHistory(7), { counters, log: silent });
    poller.pod(1, "add", "a"); // baseline: no event, but the series exists
    poller.snapshot(10, [], { collectors: [{ id: "a", node: "node-a" }] });
    expect(calls).toEqual(["inc per-node/a/node-a 0"]);
    poller.pod(11, "update", "a", false);
    poller.pod(12, "update", "a", true);
    poller.pod(13, "add", "b", false); // an appearance is not a flip
    expect(values.get("per-node/a/node-a")).toBe(2);
    expect(values.get("per-node/b/node-b")).toBe(0);
    expect(a.podSeries().find((p) => p.labels.pod === "a")?.count).toBe(2);
    poller.pod(20, "delete", "a");
    poller.snapshot(30, [], { collectors: [{ id: "b", node: "node-b" }] });
    expect(values.has("per-node/a/node-a")).toBe(true); // still there a while after the delete
    poller.snapshot(20 + 10 * 60_000, [], { collectors: [{ id: "b", node: "node-b" }] });
    expect(values.has("per-node/a/node-a")).toBe(false);
    expect(values.get("per-node/b/node-b")).toBe(0);
    expect(counters.readinessTransitions.values.get("c1/per-node")).toBe(4); // 2 flips, an add, a delete
  });

  it("a cluster released to another replica: its per-pod series go some minutes later, unless seen again; its readiness baseline starts again", () => {
    vi.useFakeTimers();
    try {
      const T = Date.now();
      const poller = new FakePoller({ name: "c1" });
      const values = new Map<string, number>();
      const key = (l: { role: string; pod: string; node: string }) => `${l.role}/${l.pod}/${l.node}`;
      const collectorTransitions = {
        inc: (l: { cluster: string; role: string; pod: string; node: string }, v = 1) => void values.set(key(l), (values.get(key(l)) ?? 0) + v),
        remove: (l: { cluster: string; role: string; pod: string; node: string }) => void values.delete(key(l)),
      };
      const counters = { readinessTransitions: new FakeCounter(), targetReassignments: new FakeCounter(), collectorTransitions };
      const a = attachHistory(poller, new MemoryHistory(7), { counters, log: silent });
      poller.pod(T + 1, "add", "a");
      poller.pod(T + 2, "add", "b");
      poller.snapshot(T + 10, [], { collectors: [{ id: "a", node: "node-a" }, { id: "b", node: "node-b" }] });
      poller.pod(T + 11, "update", "a", false);
      expect(values.get("per-node/a/node-a")).toBe(1);
      a.release(T + 20);
      vi.advanceTimersByTime(POD_SERIES_TTL_MS / 2);
      // both still there: the backend scrapes their final values a few times
      expect([...values.keys()].sort()).toEqual(["per-node/a/node-a", "per-node/b/node-b"]);
      // the Lease comes back: the informer's list finds "a" ready again (it flipped while the other replica polled), "b" gone
      poller.pod(Date.now(), "add", "a", true);
      poller.snapshot(Date.now(), [], { collectors: [{ id: "a", node: "node-a" }] });
      vi.advanceTimersByTime(POD_SERIES_TTL_MS / 2 + 1000);
      expect(values.has("per-node/b/node-b")).toBe(false);
      expect(values.get("per-node/a/node-a")).toBe(1);
      // the flip back to ready happened while another replica held the cluster: it is not counted here
      expect(counters.readinessTransitions.values.get("c1/per-node")).toBe(1);
      // released for good: "a" goes too
      a.release(Date.now());
      vi.advanceTimersByTime(POD_SERIES_TTL_MS + 1000);
      expect(values.size).toBe(0);
      a.detach();
    } finally {
      vi.useRealTimers();
    }
  });

  it("waits for the pod informer's first list before ending the baseline", () => {
    const T = Date.now();
    const poller = new FakePoller({ name: "c1" });
    const store = new MemoryHistory(7);
    const a = attachHistory(poller, store, { log: silent });
    poller.snapshot(T + 10, [], { podsListed: false });
    poller.pod(T + 11, "add", "a"); // the initial list, arriving after the first poll
    poller.snapshot(T + 20, []);
    poller.pod(T + 21, "update", "a", false);
    expect(store.readiness("c1", all, 10)).toEqual([]); // pending until the next poll or a flush
    a.flush();
    expect(store.readiness("c1", all, 10).map((e) => [e.pod, e.kind])).toEqual([["a", "became_not_ready"]]);
  });

  it("attached late, takes the baseline from the snapshot", () => {
    const T = Date.now();
    const poller = new FakePoller({ name: "c1" });
    const store = new MemoryHistory(7);
    const a = attachHistory(poller, store, { log: silent });
    poller.snapshot(T + 10, [], { collectors: [{ id: "a", eligible: true }] });
    poller.pod(T + 11, "update", "a", true);
    poller.pod(T + 12, "update", "a", false);
    a.flush();
    expect(store.readiness("c1", all, 10).map((e) => e.kind)).toEqual(["became_not_ready"]);
  });

  it("never throws into the poller when the store fails, and logs a failure once", () => {
    const poller = new FakePoller({ name: "c1" });
    const logged: string[] = [];
    const store = new MemoryHistory(7);
    store.write = () => {
      throw new Error("disk full");
    };
    attachHistory(poller, store, { log: (m) => logged.push(m) });
    expect(() => {
      poller.snapshot(10, []);
      poller.snapshot(20, []);
    }).not.toThrow();
    expect(logged).toEqual(["allocation-lens: history: c1: cannot record churn: disk full"]);
  });

  it("writes a poll's events and summary in one SqliteHistory transaction", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "history-attach-"));
    try {
      const poller = new FakePoller({ name: "c1" });
      const store = new SqliteHistory(path.join(dir, "h.sqlite"), { retentionDays: 7, maxBytes: 1e9 });
      attachHistory(poller, store, { log: silent });
      poller.snapshot(Date.now(), [["t1", "a"]]);
      poller.pod(Date.now(), "add", "z");
      poller.snapshot(Date.now(), [["t1", "b"]]);
      expect(store.readiness("c1", all, 10)).toHaveLength(1);
      expect(store.reassignments("c1", all)[0].total).toBe(1);
      store.close();
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("startHistory / historyFor", () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "history-registry-"));
  });
  afterEach(() => {
    stopHistory();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("opens one store, attaches every poller, and is idempotent", () => {
    const pollers = new Map([
      ["c1", new FakePoller({ name: "c1" })],
      ["c2", new FakePoller({ name: "c2" })],
    ]);
    const config = { history: { path: path.join(dir, "h.sqlite"), retentionDays: 7, maxBytes: 1e9 } };
    const h = startHistory({ config, pollers }, { log: silent });
    expect(startHistory({ config, pollers })).toBe(h);
    expect(historyFor("c1")?.status).toEqual({ backend: "sqlite", path: path.join(dir, "h.sqlite"), error: null });
    expect(historyFor("nope")).toBeUndefined();
    pollers.get("c2")!.snapshot(1, [["t", "a"]]);
    pollers.get("c2")!.snapshot(2, [["t", "b"]]);
    expect(churnTotals("c2")).toEqual({ "per-node": { readinessTransitions: 0, reassignments: 1 } });
    expect(churnTotals("c1")).toEqual({});
    // counters wired by a later call get what was counted so far, then every increment
    const counters = { readinessTransitions: new FakeCounter(), targetReassignments: new FakeCounter() };
    expect(startHistory({ config, pollers }, { counters })).toBe(h);
    expect(counters.targetReassignments.values.get("c2/per-node")).toBe(1);
    pollers.get("c2")!.snapshot(3, [["t", "c"]]);
    expect(counters.targetReassignments.values.get("c2/per-node")).toBe(2);
    stopHistory();
    expect(historyFor("c1")).toBeUndefined();
    expect(pollers.get("c1")!.snaps.size).toBe(0);
  });
});

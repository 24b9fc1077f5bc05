/**
 * The reshaping of Kubernetes objects into the analysis' inputs (server/kube/reshape.ts), for well-formed objects and
 * for odd or hostile ones: missing fields, wrong types, deletionTimestamp, no Ready condition, huge values. None may throw,
 * and none may yield a value of another type than the analysis expects.
 */
import { describe, expect, it } from "vitest";
import type { KubeObj } from "@/server/kube/informers";
import { agentPodFromObject, monitorFromObject, nodeInfoFromObject } from "@/server/kube/reshape";

const as = (o: unknown) => o as KubeObj;
const HUGE = "z".repeat(256 * 1024);

function pod(overrides: { metadata?: object; spec?: object; status?: object } = {}): KubeObj {
  return as({
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: "agent-abc", namespace: "amazon-cloudwatch", labels: { app: "agent" }, ...overrides.metadata },
    spec: { nodeName: "node-1", ...overrides.spec },
    status: {
      phase: "Running",
      startTime: "2024-05-01T10:00:00Z",
      conditions: [{ type: "Ready", status: "True", lastTransitionTime: "2024-05-01T10:00:05Z" }],
      containerStatuses: [{ restartCount: 2 }, { restartCount: 1 }],
      ...overrides.status,
    },
  });
}

describe("agentPodFromObject", () => {
  it("a running, ready agent pod", () => {
    expect(agentPodFromObject(pod())).toEqual({
      name: "agent-abc",
      namespace: "amazon-cloudwatch",
      nodeName: "node-1",
      terminating: false,
      phase: "Running",
      ready: true,
      readySince: Date.parse("2024-05-01T10:00:05Z"),
      restarts: 3,
      startTime: Date.parse("2024-05-01T10:00:00Z"),
    });
  });

  it("an object with no metadata, spec or status: empty, not ready, nothing thrown", () => {
    for (const o of [{}, { metadata: null, spec: null, status: null }, { metadata: "x", spec: [], status: 7 }]) {
      expect(agentPodFromObject(as(o))).toEqual({ name: "", namespace: "", nodeName: "", terminating: false, phase: "", ready: false, restarts: 0, startTime: undefined });
    }
  });

  it("a pod being deleted is terminating, whatever its readiness", () => {
    const p = agentPodFromObject(pod({ metadata: { deletionTimestamp: "2024-05-01T11:00:00Z" } }));
    expect(p).toMatchObject({ terminating: true, ready: true, phase: "Running" });
    expect(agentPodFromObject(pod({ metadata: { deletionTimestamp: "" } })).terminating).toBe(false);
    expect(agentPodFromObject(pod({ metadata: { deletionTimestamp: null } })).terminating).toBe(false);
  });

  it("no Ready condition, or Ready not exactly True: not ready, with no readiness time", () => {
    const none = agentPodFromObject(pod({ status: { conditions: [{ type: "PodScheduled", status: "True" }] } }));
    expect(none).toMatchObject({ ready: false, phase: "Running" });
    expect(none.readySince).toBeUndefined();
    expect(none.notReadySince).toBeUndefined();
    for (const conditions of [undefined, null, "Ready", { type: "Ready", status: "True" }, [null, 3, "Ready"]]) {
      expect(agentPodFromObject(pod({ status: { conditions } })).ready).toBe(false);
    }
    expect(agentPodFromObject(pod({ status: { conditions: [{ type: "Ready", status: "true" }] } })).ready).toBe(false);
    expect(agentPodFromObject(pod({ status: { conditions: [{ type: "Ready", status: true }] } })).ready).toBe(false);
  });

  it("Ready=False keeps when it flipped (upstream's grace period); a bad time is no time", () => {
    const p = agentPodFromObject(pod({ status: { conditions: [{ type: "Ready", status: "False", lastTransitionTime: "2024-05-01T10:30:00Z" }] } }));
    expect(p).toMatchObject({ ready: false, notReadySince: Date.parse("2024-05-01T10:30:00Z") });
    expect(p.readySince).toBeUndefined();
    const bad = agentPodFromObject(pod({ status: { conditions: [{ type: "Ready", status: "False", lastTransitionTime: "yesterday" }] } }));
    expect(bad.notReadySince).toBeUndefined();
  });

  it("restart counts: only non-negative numbers count; containerStatuses of another type count nothing", () => {
    expect(agentPodFromObject(pod({ status: { containerStatuses: [{ restartCount: "4" }, { restartCount: "x" }, null, {}, { restartCount: -5 }, { restartCount: Infinity }] } })).restarts).toBe(4);
    for (const containerStatuses of [undefined, null, "3", { restartCount: 3 }]) {
      expect(agentPodFromObject(pod({ status: { containerStatuses } })).restarts).toBe(0);
    }
  });

  it("a start time that is not a timestamp string is unknown", () => {
    for (const startTime of [undefined, "", "soon", 1714557600000, null, {}]) {
      expect(agentPodFromObject(pod({ status: { startTime } })).startTime).toBeUndefined();
    }
  });

  it("unscheduled and pending pods; names of the wrong type are empty", () => {
    expect(agentPodFromObject(pod({ spec: { nodeName: undefined }, status: { phase: "Pending", conditions: [] } }))).toMatchObject({ nodeName: "", phase: "Pending", ready: false });
    expect(agentPodFromObject(pod({ metadata: { name: 42, namespace: { x: 1 } }, spec: { nodeName: ["node-1"] } }))).toMatchObject({ name: "", namespace: "", nodeName: "" });
  });

  it("huge values pass through unchanged, without throwing", () => {
    const p = agentPodFromObject(pod({ metadata: { name: HUGE, labels: { big: HUGE } }, spec: { nodeName: HUGE } }));
    expect(p.name).toHaveLength(HUGE.length);
    expect(p.nodeName).toBe(HUGE);
  });
});

describe("nodeInfoFromObject", () => {
  const node = (metadata: object, status: object = { conditions: [{ type: "Ready", status: "True" }] }) => as({ metadata: { name: "node-1", ...metadata }, status });

  it("name, zone, instance type and readiness", () => {
    expect(nodeInfoFromObject(node({ labels: { "topology.kubernetes.io/zone": "eu-west-1a", "node.kubernetes.io/instance-type": "m7g.large" } }))).toEqual({
      name: "node-1",
      zone: "eu-west-1a",
      instanceType: "m7g.large",
      ready: true,
    });
  });

  it("the deprecated zone label is the fallback; no labels: no zone, no instance type", () => {
    expect(nodeInfoFromObject(node({ labels: { "failure-domain.beta.kubernetes.io/zone": "us-east-1b" } })).zone).toBe("us-east-1b");
    expect(nodeInfoFromObject(node({ labels: { "topology.kubernetes.io/zone": "a", "failure-domain.beta.kubernetes.io/zone": "b" } })).zone).toBe("a");
    expect(nodeInfoFromObject(node({}))).toMatchObject({ zone: null, instanceType: null });
  });

  it("no Ready condition, Ready=False or Unknown, conditions of another type: not ready", () => {
    expect(nodeInfoFromObject(node({}, { conditions: [{ type: "MemoryPressure", status: "False" }] })).ready).toBe(false);
    expect(nodeInfoFromObject(node({}, { conditions: [{ type: "Ready", status: "Unknown" }] })).ready).toBe(false);
    expect(nodeInfoFromObject(node({}, { conditions: [{ type: "Ready", status: "False" }] })).ready).toBe(false);
    for (const status of [{}, { conditions: null }, { conditions: { type: "Ready", status: "True" } }, { conditions: [null, "Ready"] }]) {
      expect(nodeInfoFromObject(node({}, status)).ready).toBe(false);
    }
  });

  it("a node being deleted still reports its conditions (the analysis judges collectors, not nodes, on deletion)", () => {
    expect(nodeInfoFromObject(node({ deletionTimestamp: "2024-05-01T11:00:00Z" })).ready).toBe(true);
  });

  it("missing metadata and hostile labels: no throw, strings or null only", () => {
    expect(nodeInfoFromObject(as({}))).toEqual({ name: "", zone: null, instanceType: null, ready: false });
    expect(nodeInfoFromObject(as({ metadata: null, status: null }))).toEqual({ name: "", zone: null, instanceType: null, ready: false });
    for (const labels of [null, "topology.kubernetes.io/zone", ["eu-west-1a"], { "topology.kubernetes.io/zone": 5, "node.kubernetes.io/instance-type": { a: 1 } }]) {
      expect(nodeInfoFromObject(node({ labels }))).toMatchObject({ zone: null, instanceType: null });
    }
  });

  it("huge label values pass through unchanged", () => {
    expect(nodeInfoFromObject(node({ labels: { "topology.kubernetes.io/zone": HUGE } })).zone).toBe(HUGE);
  });
});

describe("monitorFromObject", () => {
  it("endpoints of a ServiceMonitor, podMetricsEndpoints of a PodMonitor", () => {
    const sm = as({ metadata: { namespace: "shop", name: "checkout", annotations: { "cloudwatch.aws.amazon.com/scraper": "cluster-scraper" } }, spec: { endpoints: [{}, {}, {}] } });
    expect(monitorFromObject(sm, "ServiceMonitor")).toEqual({ kind: "ServiceMonitor", namespace: "shop", name: "checkout", annotations: { "cloudwatch.aws.amazon.com/scraper": "cluster-scraper" }, endpoints: 3 });
    const pm = as({ metadata: { namespace: "shop", name: "cart" }, spec: { endpoints: [{}], podMetricsEndpoints: [{}, {}] } });
    expect(monitorFromObject(pm, "PodMonitor")).toMatchObject({ kind: "PodMonitor", endpoints: 2, annotations: {} });
  });

  it("the kind is the informer's, whatever the object says", () => {
    expect(monitorFromObject(as({ kind: "PodMonitor", metadata: { name: "x" } }), "ServiceMonitor").kind).toBe("ServiceMonitor");
  });

  it("no spec, or endpoints of another type: zero endpoints", () => {
    for (const spec of [undefined, null, {}, { endpoints: { port: "http" } }, { endpoints: "http" }]) {
      expect(monitorFromObject(as({ metadata: { name: "m" }, spec }), "ServiceMonitor").endpoints).toBe(0);
    }
  });

  it("annotations: a copy, string values only; anything but an object gives none", () => {
    const annotations = { a: "1", b: 2, c: null, d: { e: "f" } };
    const m = monitorFromObject(as({ metadata: { name: "m", annotations } }), "ServiceMonitor");
    expect(m.annotations).toEqual({ a: "1" });
    m.annotations.a = "changed";
    expect(annotations.a).toBe("1");
    for (const bad of ["routing", ["cluster-scraper"], 7, null]) {
      expect(monitorFromObject(as({ metadata: { name: "m", annotations: bad } }), "ServiceMonitor").annotations).toEqual({});
    }
  });

  it("missing metadata: empty names, nothing thrown; huge annotation values pass through", () => {
    expect(monitorFromObject(as({}), "PodMonitor")).toEqual({ kind: "PodMonitor", namespace: "", name: "", annotations: {}, endpoints: 0 });
    expect(monitorFromObject(as({ metadata: { name: "m", annotations: { big: HUGE } } }), "ServiceMonitor").annotations.big).toBe(HUGE);
  });
});

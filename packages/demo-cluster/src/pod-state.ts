/** Transitions of a pod's status as the kubelet would write them, for the demo's faults. */
import type { KubeObject } from "./store";
import { iso } from "./world/naming";

type Condition = { type: string; status: string; lastTransitionTime?: string; reason?: string; message?: string };
type ContainerStatus = { name: string; ready: boolean; restartCount: number; state: Record<string, unknown>; lastState?: Record<string, unknown>; [k: string]: unknown };


function setConditions(pod: KubeObject, ready: boolean, nowMs: number, reason?: string): void {
  const status = (pod.status ??= {}) as { conditions?: Condition[] };
  const containers = ((pod.spec?.containers as { name: string }[]) ?? []).map((c) => c.name);
  status.conditions = (status.conditions ?? []).map((c) => {
    if (c.type !== "Ready" && c.type !== "ContainersReady") return c;
    const want = ready ? "True" : "False";
    if (c.status === want) return c;
    const next: Condition = { type: c.type, status: want, lastTransitionTime: iso(nowMs) };
    if (!ready) Object.assign(next, { reason: reason ?? "ContainersNotReady", message: `containers with unready status: [${containers.join(" ")}]` });
    return next;
  });
}

/** Ready=False (readiness probe failing), still Running. */
export function markNotReady(pod: KubeObject, nowMs: number): KubeObject {
  setConditions(pod, false, nowMs);
  const s = pod.status as { containerStatuses?: ContainerStatus[] };
  s.containerStatuses = (s.containerStatuses ?? []).map((c) => ({ ...c, ready: false }));
  return pod;
}

/** Back to Running and Ready. */
export function markReady(pod: KubeObject, nowMs: number): KubeObject {
  setConditions(pod, true, nowMs);
  const s = pod.status as { phase?: string; containerStatuses?: ContainerStatus[] };
  s.phase = "Running";
  s.containerStatuses = (s.containerStatuses ?? []).map((c) => ({ ...c, ready: true, state: { running: { startedAt: iso(nowMs) } } }));
  return pod;
}

/** One more crash: CrashLoopBackOff, restart count up, not Ready. The phase stays Running, as for a real crash loop. */
export function crash(pod: KubeObject, nowMs: number): KubeObject {
  setConditions(pod, false, nowMs);
  const s = pod.status as { containerStatuses?: ContainerStatus[] };
  s.containerStatuses = (s.containerStatuses ?? []).map((c) => ({
    ...c,
    ready: false,
    restartCount: c.restartCount + 1,
    state: { waiting: { reason: "CrashLoopBackOff", message: `back-off restarting failed container ${c.name}` } },
    lastState: { terminated: { exitCode: 2, reason: "Error", finishedAt: iso(nowMs) } },
  }));
  return pod;
}

/** Graceful deletion started: deletionTimestamp set (the pod is still there until its grace period ends). */
export function markTerminating(pod: KubeObject, nowMs: number, graceSeconds = 30): KubeObject {
  pod.metadata.deletionTimestamp = iso(nowMs + graceSeconds * 1000);
  (pod.metadata as Record<string, unknown>).deletionGracePeriodSeconds = graceSeconds;
  return pod;
}

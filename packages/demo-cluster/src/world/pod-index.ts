/**
 * Pods that can back a target (those with an IP), indexed by namespace and label once per discovery pass. Terminating
 * pods count: the pod role lists them, and the EndpointSlice controller keeps their endpoints (terminating, not ready).
 */
import { podIP, type KubeObject } from "./kube";

const ALL = "\u0000all";
const pair = (k: string, v: string) => `${k}\u0000${v}`;

export class PodIndex {
  private readonly byNamespace = new Map<string, Map<string, KubeObject[]>>();

  /** `keys`: the label keys selectors will ask for; other labels are not indexed. */
  constructor(pods: readonly KubeObject[], keys: ReadonlySet<string>) {
    for (const pod of pods) {
      if (!podIP(pod)) continue;
      const ns = pod.metadata.namespace ?? "default";
      let index = this.byNamespace.get(ns);
      if (!index) this.byNamespace.set(ns, (index = new Map()));
      push(index, ALL, pod);
      const labels = pod.metadata.labels;
      if (!labels) continue;
      for (const k of keys) {
        const v = labels[k];
        if (v !== undefined) push(index, pair(k, v), pod);
      }
    }
  }

  /** Pods in `namespaces` whose labels carry every `matchLabels` pair (an empty selector selects all), in input order. */
  select(namespaces: readonly string[] | "any", matchLabels: Record<string, string>): KubeObject[] {
    const entries = Object.entries(matchLabels);
    const names = namespaces === "any" ? [...this.byNamespace.keys()].sort() : namespaces;
    const out: KubeObject[] = [];
    for (const ns of names) {
      const index = this.byNamespace.get(ns);
      if (!index) continue;
      let smallest = index.get(ALL)!;
      for (const [k, v] of entries) {
        const list = index.get(pair(k, v));
        if (!list) {
          smallest = [];
          break;
        }
        if (list.length < smallest.length) smallest = list;
      }
      for (const pod of smallest) {
        const labels = pod.metadata.labels ?? {};
        if (entries.every(([k, v]) => labels[k] === v)) out.push(pod);
      }
    }
    return out;
  }
}

function push(index: Map<string, KubeObject[]>, key: string, pod: KubeObject): void {
  const list = index.get(key);
  if (list) list.push(pod);
  else index.set(key, [pod]);
}

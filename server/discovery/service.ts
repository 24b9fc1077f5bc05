import "server-only";
/**
 * Discovery of a cluster's Target Allocators through its Kubernetes API, with the user's or the service account's own
 * credentials: one reading lists the ConfigMaps, Services and Deployments (every namespace, or `discover.namespaces`),
 * each list paged and bounded by `kubernetes.requestTimeoutSeconds`, and hands them to lib/discovery (what is found and
 * why anything was dropped), then to the merge with the configured overrides. Nothing of a ConfigMap is kept but what
 * the pure code derives from it: the objects are dropped after each reading.
 */
import * as k8s from "@kubernetes/client-node";
import type { ClusterConfig, DiscoverConfig, TaConfig } from "@/lib/config/schema";
import { discoverTargetAllocators, type DiscoveredTa, type DroppedTa, type ObjectLike } from "@/lib/discovery/operators";
import { effectiveTargetAllocators, reachModeFor, type ReachMode } from "@/lib/discovery/merge";
import type { Role } from "@/lib/model";
import { SourceError } from "@/lib/source-error";
import { forbiddenMessage } from "@/lib/ta/reach";
import { abortable, kubeConfigFor, withDeadline } from "@/server/kube/informers";

/** objects per list page; a cluster with more ConfigMaps than MAX_PAGES pages is read only that far (and says so) */
const PAGE = 500;
const MAX_PAGES = 40;

export interface DiscoveryReading {
  at: number;
  found: (DiscoveredTa & { reach: ReachMode })[];
  dropped: DroppedTa[];
  /** the TA entries to poll: discovered values with the configured overrides */
  entries: Partial<Record<Role, TaConfig>>;
  /** problems of the merged entries (a bad override), one line each */
  problems: string[];
}

type Page = { items: ObjectLike[]; metadata?: { _continue?: string } };
type Lister = (o: { namespace?: string; limit: number; _continue?: string }, options: ReturnType<typeof abortable>) => Promise<Page>;

/** The verb, resource and namespace a refused list names, for the error's fix. */
function refused(source: string, resource: string, namespace: string | undefined, status: number): SourceError {
  const where = namespace ? `in namespace ${namespace}` : "cluster-wide (or set discover.namespaces to the TAs' namespaces)";
  return new SourceError({
    source,
    kind: "forbidden",
    status,
    message: forbiddenMessage("list", resource, namespace),
    hint: `grant list on ${resource} ${where}: discovery reads the operators' ConfigMaps, Services and Deployments`,
  });
}

export class TaDiscovery {
  private readonly kc: k8s.KubeConfig;
  private readonly source: string;
  private readonly core: k8s.CoreV1Api;
  private readonly apps: k8s.AppsV1Api;

  constructor(
    private readonly cluster: ClusterConfig,
    private readonly discover: DiscoverConfig,
    kc?: k8s.KubeConfig,
  ) {
    this.kc = kc ?? kubeConfigFor(cluster.kubernetes);
    this.source = `${cluster.name}/discovery`;
    this.core = this.kc.makeApiClient(k8s.CoreV1Api);
    this.apps = this.kc.makeApiClient(k8s.AppsV1Api);
  }

  /** One reading; rejects with a SourceError (forbidden, timeout, network) when a list fails. */
  async read(): Promise<DiscoveryReading> {
    const namespaces = this.discover.namespaces.length ? this.discover.namespaces : [undefined];
    const listers: Record<"configmaps" | "services" | "deployments", Lister> = {
      configmaps: (o, opt) => (o.namespace ? this.core.listNamespacedConfigMap({ ...o, namespace: o.namespace }, opt) : this.core.listConfigMapForAllNamespaces(o, opt)) as Promise<Page>,
      services: (o, opt) => (o.namespace ? this.core.listNamespacedService({ ...o, namespace: o.namespace }, opt) : this.core.listServiceForAllNamespaces(o, opt)) as Promise<Page>,
      deployments: (o, opt) => (o.namespace ? this.apps.listNamespacedDeployment({ ...o, namespace: o.namespace }, opt) : this.apps.listDeploymentForAllNamespaces(o, opt)) as Promise<Page>,
    };
    const lists = { configmaps: [] as ObjectLike[], services: [] as ObjectLike[], deployments: [] as ObjectLike[] };
    const truncated: string[] = [];
    for (const ns of namespaces) {
      await Promise.all(
        (Object.keys(listers) as (keyof typeof listers)[]).map(async (resource) => {
          const { items, complete } = await this.listAll(resource, ns, listers[resource]);
          // ConfigMaps: keep only the TA configuration key, so that the other data of the cluster's ConfigMaps is let go
          for (const o of items) lists[resource].push(resource === "configmaps" ? slimConfigMap(o) : o);
          if (!complete) truncated.push(`${resource}${ns ? ` in ${ns}` : ""}`);
        }),
      );
    }
    const d = discoverTargetAllocators({ configMaps: lists.configmaps, services: lists.services, deployments: lists.deployments });
    const inCluster = this.cluster.kubernetes.inCluster;
    const merged = effectiveTargetAllocators(d.found, this.discover, inCluster);
    const dropped = [...d.dropped];
    for (const t of truncated) dropped.push({ object: t, reason: `more than ${PAGE * MAX_PAGES} objects: only the first pages were read (set discover.namespaces)` });
    return {
      at: Date.now(),
      found: d.found.map((f) => ({ ...f, reach: reachModeFor(f, this.discover.reach, inCluster) })),
      dropped,
      entries: merged.entries,
      problems: merged.problems.map((p) => p.message),
    };
  }

  private async listAll(resource: string, namespace: string | undefined, list: Lister): Promise<{ items: ObjectLike[]; complete: boolean }> {
    const items: ObjectLike[] = [];
    let cont: string | undefined;
    const seconds = this.cluster.kubernetes.requestTimeoutSeconds;
    for (let page = 0; page < MAX_PAGES; page++) {
      let answer: Page;
      try {
        answer = await withDeadline(
          seconds * 1000,
          (signal) => list({ namespace, limit: PAGE, _continue: cont }, abortable(signal)),
          () => new SourceError({ source: this.source, kind: "timeout", message: `listing ${resource} took longer than ${seconds} s`, hint: "raise kubernetes.requestTimeoutSeconds if the API server is only slow" }),
        );
      } catch (e) {
        if (e instanceof SourceError) throw e;
        const status = (e as { code?: number }).code;
        if (status === 401 || status === 403) throw refused(this.source, resource, namespace, status);
        const text = typeof (e as Error)?.message === "string" ? (e as Error).message.split("\n")[0].slice(0, 200) : String(e);
        throw new SourceError({ source: this.source, kind: typeof status === "number" ? "http" : "network", status, message: `listing ${resource}: ${text}` });
      }
      items.push(...(answer.items ?? []));
      cont = answer.metadata?._continue;
      if (!cont) return { items, complete: true };
    }
    return { items, complete: false };
  }
}

function slimConfigMap(o: ObjectLike): ObjectLike {
  const text = o.data?.["targetallocator.yaml"];
  return { metadata: o.metadata && { name: o.metadata.name, namespace: o.metadata.namespace, labels: o.metadata.labels }, data: text === undefined ? undefined : { "targetallocator.yaml": text } };
}

/** One line for the log: what was found (role, flavor, where, how reached) and what was dropped, with why. */
export function discoveryLine(cluster: string, r: DiscoveryReading): string {
  const found = r.found.map((f) => `${f.role}: ${f.flavor} ${f.namespace}/${f.configMap} (${f.strategy}, ${f.reach}${f.mtls ? ", mTLS" : ""})`);
  const parts = [`allocation-lens: ${cluster}: discovered ${found.length} Target Allocator${found.length === 1 ? "" : "s"}${found.length ? `: ${found.join("; ")}` : ""}`];
  if (r.dropped.length) parts.push(`dropped ${r.dropped.length}: ${r.dropped.map((d) => `${d.object}: ${d.reason}`).join("; ")}`);
  if (r.problems.length) parts.push(`configuration problems: ${r.problems.join("; ")}`);
  return parts.join("; ");
}

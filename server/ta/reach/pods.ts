import "server-only";
/**
 * Which pod a port-forward to a TA's Service goes to: a Ready, non-terminating pod selected by the Service's
 * `spec.selector` in its namespace, read with the user's credentials (`get` services, `list` pods), and which of its ports
 * (the Service port's target port, by number or by container port name). The choice is kept until a connection to the pod
 * fails; then the next connection looks again (a replaced pod has a new name).
 */
import * as k8s from "@kubernetes/client-node";
import { SourceError } from "@/lib/source-error";
import { choosePod, forbiddenMessage, podPort, selectorString, servicePort, type PodLike } from "@/lib/ta/reach";
import { abortable } from "@/server/kube/informers";
import { kubeStatus } from "@/server/ta/secret-tls";

export interface PodChoice {
  pod: string;
  port: number;
}

/** Picks the pod of the next tunnel; `avoid` is the pod a connection just failed to (chosen again only if it is alone). */
export type PodResolver = (avoid?: string) => Promise<PodChoice>;

export interface ServicePodsOptions {
  source: string;
  namespace: string;
  service: string;
  port?: number | string;
  /** the pod's port, when known: then no Service port is looked up */
  targetPort?: number;
  timeoutMs: number;
}

/** The default resolver: the Service's selector, its pods, the Ready one. */
export function servicePods(kc: k8s.KubeConfig, o: ServicePodsOptions): PodResolver {
  const core = kc.makeApiClient(k8s.CoreV1Api);
  const { source, namespace, service } = o;
  const fail = (what: { verb: string; resource: string }, e: unknown, name: string): SourceError => {
    const status = kubeStatus(e);
    if (status === 401 || status === 403) {
      return new SourceError({ source, kind: "forbidden", status, message: forbiddenMessage(what.verb, what.resource, namespace), hint: "reach portForward finds the TA pod through its Service" });
    }
    if (status === 404) return new SourceError({ source, kind: "not_found", status, message: `the ${name} does not exist`, hint: "check reach portForward namespace and service" });
    const text = status === undefined ? String((e as Error)?.message ?? e).split("\n")[0].slice(0, 200) : `HTTP ${status}`;
    return new SourceError({ source, kind: status === undefined || status >= 500 ? "network" : "http", status, message: `reading the ${name} failed: ${text}` });
  };
  const bounded = async <T>(run: (options: ReturnType<typeof abortable>) => Promise<T>): Promise<T> => {
    const stop = new AbortController();
    const timer = setTimeout(() => stop.abort(), o.timeoutMs);
    try {
      return await run(abortable(stop.signal));
    } finally {
      clearTimeout(timer);
    }
  };
  return async (avoid) => {
    const svcName = `Service ${namespace}/${service}`;
    let svc: k8s.V1Service;
    try {
      svc = await bounded((opts) => core.readNamespacedService({ name: service, namespace }, opts));
    } catch (e) {
      throw fail({ verb: "get", resource: "services" }, e, svcName);
    }
    const selector = svc.spec?.selector;
    if (!selector || Object.keys(selector).length === 0) {
      throw new SourceError({ source, kind: "config", message: `the ${svcName} has no selector: a port-forward needs its pods`, hint: "reach the TA directly or through serviceProxy" });
    }
    let target: number | string;
    if (o.targetPort !== undefined) target = o.targetPort;
    else {
      const chosen = servicePort(svc, svcName, o.port);
      if (!chosen.ok) throw new SourceError({ source, kind: "config", message: chosen.message, hint: "set reach portForward port to one of the Service's ports" });
      target = chosen.targetPort;
    }
    let pods: PodLike[];
    try {
      pods = (await bounded((opts) => core.listNamespacedPod({ namespace, labelSelector: selectorString(selector) }, opts))).items as PodLike[];
    } catch (e) {
      throw fail({ verb: "list", resource: "pods" }, e, `pods of the ${svcName}`);
    }
    const pod = choosePod(pods, avoid);
    if (!pod) {
      throw new SourceError({
        source,
        kind: "network",
        message: `no Ready pod of the ${svcName} (${pods.length} match its selector)`,
        hint: "the TA is restarting or not deployed; the next poll looks again",
      });
    }
    const port = podPort(pods.find((p) => p.metadata?.name === pod)!, target);
    if (port === null) throw new SourceError({ source, kind: "config", message: `the pod ${namespace}/${pod} has no container port named ${String(target)}`, hint: "set reach portForward port" });
    return { pod, port };
  };
}

/**
 * Keeps the pod chosen until a connection to it fails; concurrent connections share one look-up.
 */
export class PodChooser {
  private current: PodChoice | null = null;
  private pending: Promise<PodChoice> | null = null;
  private avoid: string | undefined;

  constructor(private readonly resolve: PodResolver) {}

  pick(): Promise<PodChoice> {
    if (this.current) return Promise.resolve(this.current);
    if (!this.pending) {
      this.pending = this.resolve(this.avoid).then(
        (c) => {
          this.pending = null;
          this.current = c;
          this.avoid = undefined;
          return c;
        },
        (e: unknown) => {
          this.pending = null;
          throw e;
        },
      );
    }
    return this.pending;
  }

  /** a connection to `pod` failed or ended on its own: the next one looks again (avoiding it while another is Ready) */
  failed(pod: string): void {
    if (this.current?.pod === pod) {
      this.current = null;
      this.avoid = pod;
    }
  }
}

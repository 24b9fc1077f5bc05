import "server-only";
/**
 * A Kubernetes API client whose requests share keep-alive connections. @kubernetes/client-node (1.x) builds a new HTTP
 * agent for every request from the kubeconfig's TLS settings, so each request opens a connection of its own, and over
 * TLS makes a full handshake. That is fine for a list now and then, not for the Lease traffic of many clusters: every
 * replica renews each cluster Lease it holds and reads the membership every renewal period (20 clusters, a renewal every
 * 5 s: a handshake every 250 ms on each side). The client's own agent is still built per request (it carries the
 * kubeconfig's current TLS material); a middleware swaps it for one kept agent with the same options and keep-alive,
 * kept while that material stays the same, and built again when it changes (a rotated client certificate).
 */
import http from "node:http";
import https from "node:https";
import * as k8s from "@kubernetes/client-node";

type Options = https.AgentOptions & { ca?: unknown; cert?: unknown; key?: unknown; pfx?: unknown; passphrase?: unknown; servername?: string; rejectUnauthorized?: boolean };

/** The TLS material and settings of an agent's options, as one comparable string (PEM buffers and strings alike). */
const materialOf = (o: Options) =>
  JSON.stringify([o.ca, o.cert, o.key, o.pfx, o.passphrase, o.servername, o.rejectUnauthorized].map((v) => (Buffer.isBuffer(v) ? v.toString("base64") : (v ?? null))));

/** A middleware that gives every request the kept keep-alive agent for the request's own agent's options. */
export function keepAliveMiddleware(): k8s.Middleware {
  let kept: { material: string; agent: http.Agent } | null = null;
  const swap = (context: k8s.RequestContext): k8s.RequestContext => {
    const fresh = context.getAgent() as unknown as { constructor: unknown; options?: Options; destroy(): void } | undefined;
    if (!fresh) return context;
    const kind: unknown = fresh.constructor;
    const secure = kind === https.Agent;
    // a proxy agent (the kubeconfig's proxy-url) is left as the client built it
    if (!secure && kind !== http.Agent) return context;
    const options = fresh.options ?? {};
    const material = `${secure ? "https" : "http"}:${materialOf(options)}`;
    if (!kept || kept.material !== material) {
      kept?.agent.destroy();
      const o = { ...options, keepAlive: true };
      kept = { material, agent: secure ? new https.Agent(o) : new http.Agent(o) };
    }
    fresh.destroy();
    context.setAgent(kept.agent);
    return context;
  };
  return {
    pre: async (context: k8s.RequestContext) => swap(context),
    post: async (context: k8s.ResponseContext) => context,
  };
}

/** `kc.makeApiClient(type)`, its requests over kept keep-alive connections. */
export function keepAliveApiClient<T>(kc: k8s.KubeConfig, type: new (config: k8s.Configuration) => T): T {
  const cluster = kc.getCurrentCluster();
  if (!cluster) throw new Error("No active cluster!");
  return new type(k8s.createConfiguration({ baseServer: new k8s.ServerConfiguration(cluster.server, {}), authMethods: { default: kc }, promiseMiddleware: [keepAliveMiddleware()] }));
}

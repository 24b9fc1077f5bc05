/**
 * The holder's side of the peer path (server/lease/peer.ts), served by the server entry (server/inbound/main.ts) before
 * Next.js: a request with the peer token is another replica's, and is not counted against the per-client limits (the
 * asking replica applies them to its own clients); one without it goes the usual way and is refused with 401.
 *
 * It answers only for the clusters this replica polls: for any other, 409 `not_holder` (the asker reads the Lease again;
 * no request is passed on, so two replicas with different views of a Lease cannot ask each other in a loop).
 *
 * No "server-only" import: bundled into the server entry. The runtime is the one Next.js' instrumentation created, found on
 * globalThis (server/runtime.ts); this module never creates one.
 */
import type http from "node:http";
import { ANSWER_ROUTES, type AnswerRoute, type SnapshotMeta } from "@/server/poll/protocol";
import type { ClusterHandle } from "@/server/poll/host";
import type { Runtime } from "@/server/runtime";
import { MAX_CLUSTERS_PER_METAS, PEER_PREFIX, peerAuthorized, type PeerMetasAnswer } from "@/server/lease/peer";
import { send as sendBody } from "@/server/inbound/early";
import { runtimeIfSettled, settledRuntime } from "@/server/inbound/runtime-now";

export function isPeerPath(url: string | undefined): boolean {
  return (url ?? "").startsWith(PEER_PREFIX);
}

function send(res: http.ServerResponse, status: number, body: Uint8Array | string, kind: "answer" | "meta" | "metas" | "refusal"): void {
  sendBody(res, status, { "Content-Type": "application/json", "Cache-Control": "no-store", "X-Allocation-Lens-Peer": kind, "X-Content-Type-Options": "nosniff" }, body);
}

/** Why a peer's request is not answered: its status, and the error's code and message in the body. */
interface Refusal {
  status: number;
  code: string;
  message: string;
}

const refuse = (res: http.ServerResponse, { status, code, message }: Refusal) => send(res, status, JSON.stringify({ error: { code, message } }), "refusal");

function authorizedFor(runtime: Runtime | null, req: http.IncomingMessage): Runtime | null {
  if (!runtime?.lease || req.method !== "GET" || !isPeerPath(req.url)) return null;
  const auth = req.headers.authorization;
  return peerAuthorized(Array.isArray(auth) ? auth[0] : auth, runtime.lease.peer) ? runtime : null;
}

/**
 * What to do with a request of the peer path (awaits the runtime): serve it (the peer token, a GET), refuse it (401), or
 * pass it on to Next.js like any other path when `lease` is off (there is no peer path then).
 */
export async function peerRequest(req: http.IncomingMessage): Promise<{ serve: Runtime } | "refuse" | "pass"> {
  const settled = await settledRuntime();
  if (!settled?.lease) return "pass";
  const runtime = authorizedFor(settled, req);
  return runtime ? { serve: runtime } : "refuse";
}

/** The same check, synchronous (null until the runtime has settled: the request then goes the usual way, peerRuntime). */
export function peerRuntimeNow(req: http.IncomingMessage): Runtime | null {
  if (!isPeerPath(req.url)) return null;
  return authorizedFor(runtimeIfSettled(), req);
}

/** The poller of a cluster this replica polls, or why a peer asking for it is refused. */
function localHandle(runtime: Runtime, cluster: string): { handle: ClusterHandle } | { refused: Refusal } {
  const handle = runtime.pollers.get(cluster);
  if (!handle) return { refused: { status: 404, code: "unknown_cluster", message: `no cluster named "${cluster}" in the configuration` } };
  if (handle.mode.kind !== "local") return { refused: { status: 409, code: "not_holder", message: `this replica does not hold the Lease of ${cluster}` } };
  return { handle };
}

/** The latest poll summary of a cluster this replica polls, or why not: what `meta` and `metas` both answer. */
function latestOf(runtime: Runtime, cluster: string): { meta: SnapshotMeta } | { refused: Refusal } {
  const local = localHandle(runtime, cluster);
  if ("refused" in local) return local;
  const meta = local.handle.latest;
  return meta ? { meta } : { refused: { status: 503, code: "not_ready", message: "the first poll has not finished yet" } };
}

/** Serves one authenticated peer request. */
export async function servePeer(runtime: Runtime, req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
  const url = new URL(req.url ?? "/", "http://peer.invalid");
  const op = url.pathname.slice(PEER_PREFIX.length);
  if (op === "metas") return serveMetas(runtime, url.searchParams.getAll("cluster"), res);
  const cluster = url.searchParams.get("cluster") ?? "";
  if (op === "meta") {
    const latest = latestOf(runtime, cluster);
    if ("refused" in latest) return refuse(res, latest.refused);
    return send(res, 200, JSON.stringify(latest.meta), "meta");
  }
  const local = localHandle(runtime, cluster);
  if ("refused" in local) return refuse(res, local.refused);
  if (op === "answer") {
    const route = url.searchParams.get("route") ?? "";
    if (!(ANSWER_ROUTES as readonly string[]).includes(route)) return refuse(res, { status: 400, code: "bad_route", message: "unknown route" });
    const name = url.searchParams.get("name") ?? undefined;
    try {
      const a = await local.handle.answer({ route: route as AnswerRoute, search: url.searchParams.get("search") ?? "", name });
      return send(res, a.status, a.body, "answer");
    } catch (e) {
      const err = e as { status?: number; code?: string; message?: string };
      // an ApiError of the worker is an answer like any other; anything else a 500 without detail
      if (typeof err.status === "number" && err.code) return send(res, err.status, JSON.stringify({ error: { code: err.code, message: err.message } }), "answer");
      return refuse(res, { status: 500, code: "internal", message: "internal error" });
    }
  }
  return refuse(res, { status: 404, code: "not_found", message: "no such peer route" });
}

/** Every cluster's latest poll summary, or what `meta` would have refused for it. */
function serveMetas(runtime: Runtime, clusters: string[], res: http.ServerResponse): void {
  if (clusters.length === 0 || clusters.length > MAX_CLUSTERS_PER_METAS) return refuse(res, { status: 400, code: "bad_request", message: `name from 1 to ${MAX_CLUSTERS_PER_METAS} clusters` });
  const answer: PeerMetasAnswer = { metas: [], refused: [] };
  for (const cluster of new Set(clusters)) {
    const latest = latestOf(runtime, cluster);
    if ("meta" in latest) answer.metas.push({ cluster, meta: latest.meta });
    else answer.refused.push({ cluster, status: latest.refused.status, code: latest.refused.code });
  }
  send(res, 200, JSON.stringify(answer), "metas");
}

/** A request to the peer path without the peer token (or before the runtime is up): 401, the token never echoed. */
export function refusePeer(res: http.ServerResponse): void {
  refuse(res, { status: 401, code: "unauthorized", message: "the peer path needs the replicas' peer token (lease.peerTokenFile)" });
}

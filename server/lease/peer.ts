/**
 * The internal path between replicas (`lease` in the configuration): a replica that does not hold a cluster's Lease asks
 * the holder for that cluster's poll summary and answers at `http://<holder address>/internal/peer/v1/...`, with the
 * shared peer token (`lease.peerTokenFile`, one Secret mounted in every replica) as a bearer token. The holder compares it
 * in constant time (digests, as the API tokens are); the token is never logged, returned or put in an error.
 *
 * Routes (GET, served by the server entry before Next.js: server/lease/peer-server.ts):
 * - `/internal/peer/v1/meta?cluster=C`: the latest SnapshotMeta, JSON; 409 `not_holder` when this replica does not poll C.
 * - `/internal/peer/v1/metas?cluster=C1&cluster=C2...`: the latest SnapshotMeta of each cluster asked, in one answer
 *   (`{ metas: [{ cluster, meta }], refused: [{ cluster, status, code }] }`), each refusal what `meta` would have
 *   answered for that cluster. A replica follows all the clusters one holder polls with it (server/lease/follow.ts).
 * - `/internal/peer/v1/answer?cluster=C&route=R[&name=N]&search=S`: the answer's status and JSON bytes, as the holder's
 *   poll worker computed them.
 *
 * No "server-only" import: the server entry (outside Next.js' bundles) serves these routes.
 */
import fs from "node:fs";
import { MIN_TOKEN_LENGTH, parseTokenFile, tokenMatches } from "@/lib/auth/decide";
import type { AnswerQuestion } from "@/server/poll/answers";
import type { Answer, SnapshotMeta } from "@/server/poll/protocol";

export const PEER_PREFIX = "/internal/peer/v1/";
/** a replica waits this long for the holder's answer before it serves its last one, marked stale */
export const PEER_TIMEOUT_MS = 3_000;
/** the most a holder's answer may be (the node map of 5,000 nodes is a few MB) */
const MAX_PEER_ANSWER_BYTES = 256 * 1024 * 1024;

export interface PeerToken {
  /** what this replica sends */
  readonly authorization: string;
  /** what it accepts: every token line of the file (a rotation adds the new line first, then removes the old one) */
  readonly digests: readonly Buffer[];
}

/** The peer token file: its first token is sent, all are accepted. Throws naming the file and line, never the token. */
export function loadPeerToken(file: string): PeerToken {
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch (e) {
    throw new Error(`lease.peerTokenFile: cannot read ${file} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
  }
  const parsed = parseTokenFile(text);
  if (parsed.problems.length) throw new Error(`lease.peerTokenFile: ${file} line ${parsed.problems[0].line}: ${parsed.problems[0].message}`);
  const first = text
    .split(/\r?\n/)
    .map((l) => l.trim())
    .find((l) => l && !l.startsWith("#"));
  if (!first) throw new Error(`lease.peerTokenFile: ${file} holds no token (one line of at least ${MIN_TOKEN_LENGTH} characters: \`openssl rand -base64 32\`)`);
  return { authorization: `Bearer ${first}`, digests: parsed.digests };
}

/** Whether a request's Authorization header carries the peer token (constant time per known token). */
export function peerAuthorized(authorization: string | undefined, token: PeerToken): boolean {
  const m = /^Bearer ([^\s]+)$/.exec(authorization ?? "");
  return m !== null && tokenMatches(m[1], token.digests);
}

/** Why a holder could not be asked: the kind a stale source shows, and a message without the token. */
export class PeerError extends Error {
  constructor(
    readonly kind: "network" | "timeout" | "http" | "parse",
    message: string,
    readonly status?: number,
  ) {
    super(message);
  }
}

/** What went wrong in asking a holder, as a PeerError (anything else thrown on the way is a network error). */
export function asPeerError(e: unknown): PeerError {
  return e instanceof PeerError ? e : new PeerError("network", (e as Error)?.message ?? String(e));
}

async function ask(address: string, path: string, token: PeerToken, timeoutMs: number): Promise<Response> {
  const url = `http://${address}${PEER_PREFIX}${path}`;
  try {
    return await fetch(url, { headers: { Authorization: token.authorization }, signal: AbortSignal.timeout(timeoutMs), redirect: "error" });
  } catch (e) {
    const err = e as Error & { cause?: { code?: string; message?: string } };
    if (err.name === "TimeoutError" || err.name === "AbortError") throw new PeerError("timeout", `the holder at ${address} did not answer within ${timeoutMs / 1000} s`);
    throw new PeerError("network", `the holder at ${address} cannot be reached: ${err.cause?.code ?? err.cause?.message ?? err.message}`);
  }
}

async function bytesOf(res: Response, address: string): Promise<Uint8Array> {
  const declared = Number(res.headers.get("content-length") ?? "0");
  if (declared > MAX_PEER_ANSWER_BYTES) throw new PeerError("http", `the holder at ${address} sent ${declared} bytes, over ${MAX_PEER_ANSWER_BYTES}`);
  return new Uint8Array(await res.arrayBuffer());
}

async function refusal(res: Response, address: string): Promise<PeerError> {
  let code = "";
  try {
    code = ((await res.json()) as { error?: { code?: string } }).error?.code ?? "";
  } catch {
    /* not JSON */
  }
  return new PeerError("http", `the holder at ${address} answered HTTP ${res.status}${code ? ` (${code})` : ""}`, res.status);
}

/** The holder's latest poll summary of `cluster`. */
export async function peerMeta(address: string, cluster: string, token: PeerToken, timeoutMs = PEER_TIMEOUT_MS): Promise<SnapshotMeta> {
  const res = await ask(address, `meta?cluster=${encodeURIComponent(cluster)}`, token, timeoutMs);
  if (res.status !== 200) throw await refusal(res, address);
  try {
    return JSON.parse(new TextDecoder().decode(await bytesOf(res, address))) as SnapshotMeta;
  } catch (e) {
    if (e instanceof PeerError) throw e;
    throw new PeerError("parse", `the holder at ${address} sent a poll summary that is not JSON`);
  }
}

/** The most clusters one `metas` request names (its URL stays well within the server's header limit). */
export const MAX_CLUSTERS_PER_METAS = 50;

export interface PeerMetasAnswer {
  metas: Array<{ cluster: string; meta: SnapshotMeta }>;
  refused: Array<{ cluster: string; status: number; code: string }>;
}
/** "unsupported": the holder refused `metas` itself (a replica older than it), and is to be asked cluster by cluster */
export type PeerMetas = PeerMetasAnswer | "unsupported";

/** The holder's latest poll summary of each of `clusters`, in one request per MAX_CLUSTERS_PER_METAS clusters. */
export async function peerMetas(address: string, clusters: readonly string[], token: PeerToken, timeoutMs = PEER_TIMEOUT_MS): Promise<PeerMetas> {
  const out: PeerMetasAnswer = { metas: [], refused: [] };
  for (let i = 0; i < clusters.length; i += MAX_CLUSTERS_PER_METAS) {
    const params = new URLSearchParams(clusters.slice(i, i + MAX_CLUSTERS_PER_METAS).map((c) => ["cluster", c]));
    const res = await ask(address, `metas?${params}`, token, timeoutMs);
    if (res.headers.get("x-allocation-lens-peer") !== "metas") {
      // an older replica takes the first cluster for `meta`'s and refuses the route (404) or the cluster (409)
      if (res.status === 404 || res.status === 409) {
        await res.body?.cancel();
        return "unsupported";
      }
      throw await refusal(res, address);
    }
    let part: PeerMetasAnswer;
    try {
      part = JSON.parse(new TextDecoder().decode(await bytesOf(res, address))) as PeerMetasAnswer;
    } catch (e) {
      if (e instanceof PeerError) throw e;
      throw new PeerError("parse", `the holder at ${address} sent poll summaries that are not JSON`);
    }
    if (!Array.isArray(part?.metas) || !Array.isArray(part?.refused)) throw new PeerError("parse", `the holder at ${address} sent poll summaries without their lists`);
    out.metas.push(...part.metas.filter((m) => typeof m?.cluster === "string" && m.meta && typeof m.meta === "object"));
    out.refused.push(...part.refused.filter((r) => typeof r?.cluster === "string" && typeof r.status === "number" && typeof r.code === "string"));
  }
  return out;
}

/** The holder's answer to a question about `cluster`; its own errors (400, 404, 503 of a route) are answers too. */
export async function peerAnswer(address: string, cluster: string, q: AnswerQuestion, token: PeerToken, timeoutMs = PEER_TIMEOUT_MS): Promise<Answer> {
  const params = new URLSearchParams({ cluster, route: q.route, search: q.search });
  if (q.name !== undefined) params.set("name", q.name);
  const res = await ask(address, `answer?${params}`, token, timeoutMs);
  // refusals of the peer path itself: the holder is not the holder any more, the token is wrong
  if (res.headers.get("x-allocation-lens-peer") !== "answer") throw await refusal(res, address);
  return { status: res.status, body: await bytesOf(res, address) };
}

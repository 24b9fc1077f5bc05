import "server-only";
/**
 * Shared plumbing of the route handlers: find the cluster's handle, wait (bounded) for its first poll, send its answer's
 * bytes, and map errors to HTTP answers in one place. The answers themselves are computed in the poll worker
 * (server/poll/answers.ts); a handler only validates its query first, so that a bad one is a 400 at once.
 */
import { connection, NextResponse } from "next/server";
import { getRuntime } from "@/server/runtime";
import { WaitRefused } from "@/lib/waiters";
import { ApiError, queryParams } from "@/server/api-error";
import type { ClusterHandle } from "@/server/poll/host";
import type { AnswerRoute } from "@/server/poll/answers";

export { ApiError, queryParams };

const FIRST_POLL_WAIT_MS = 15_000;
const JSON_HEADERS = { "Content-Type": "application/json", "Cache-Control": "no-store" };

/** The handle of the request's cluster (`?cluster=`, default the first), once it has polled (a bounded wait). */
async function clusterFor(url: string): Promise<ClusterHandle> {
  const runtime = await getRuntime();
  const requested = new URL(url).searchParams.get("cluster");
  const name = requested ?? runtime.config.clusters[0].name;
  const cluster = runtime.pollers.get(name);
  if (!cluster) throw new ApiError(404, "unknown_cluster", `no cluster named "${name}" in the configuration`);
  try {
    // bounded: a request waits at most 15 s for the first poll, and is refused at once when too many already wait
    await cluster.next(FIRST_POLL_WAIT_MS);
    return cluster;
  } catch (e) {
    if (e instanceof WaitRefused) throw new ApiError(503, "not_ready", e.message);
    throw e;
  }
}

/** The answer of a cluster route for this request, as the poll worker computed it (its bytes, sent as they are). */
export async function answer(request: Request, route: AnswerRoute, name?: string): Promise<Response> {
  try {
    const cluster = await clusterFor(request.url);
    const a = await cluster.answer({ route, search: new URL(request.url).search, name });
    return new Response(a.body as Uint8Array<ArrayBuffer>, { status: a.status, headers: JSON_HEADERS });
  } catch (e) {
    return errorResponse(e);
  }
}

/** How long a server-rendered page waits for its first answer before it is sent without it. */
export const PAGE_ANSWER_WAIT_MS = 200;

/**
 * What `work` gives within PAGE_ANSWER_WAIT_MS, for a server-rendered page; when it is late, what `late` has then (an
 * earlier answer, which carries its own time), else undefined. Without an answer the page is sent with its skeleton,
 * and the browser asks as it always does; with one, the view asks again once it is a poll interval old.
 */
export async function answerWithin<T>(work: () => Promise<T | undefined>, late?: () => T | undefined): Promise<T | undefined> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<T | undefined>((resolve) => (timer = setTimeout(() => resolve(late?.()), PAGE_ANSWER_WAIT_MS)));
  try {
    return await Promise.race([work().catch(() => undefined), deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * answerWithin for a page being rendered, and only ever at a request: `next build` prerenders a page that reads nothing
 * of its request (the fleet pages), and `connection()` stops that render here, before `work` would start the runtime
 * (and with it the embedded demo cluster) inside the build.
 */
export async function pageData<T>(work: () => Promise<T | undefined>, late?: () => T | undefined): Promise<T | undefined> {
  await connection();
  return answerWithin(work, late);
}

/**
 * A cluster route's answer for a server-rendered page, parsed, so that the HTML carries the view's first figures and the
 * browser paints them before its scripts run: a 200 of a cluster that has polled, within PAGE_ANSWER_WAIT_MS. When the
 * answer of the latest poll is late (another replica polls the cluster and is slow to answer), the last good one this
 * replica has (ClusterHandle.lastAnswer: the poll before, its time on it) rather than a page without figures.
 */
export function pageAnswer(route: AnswerRoute, clusterName: string | undefined): Promise<unknown> {
  let cluster: ClusterHandle | undefined;
  const parse = (a: { status: number; body: Uint8Array } | undefined) => (a?.status === 200 ? (JSON.parse(new TextDecoder().decode(a.body)) as unknown) : undefined);
  return pageData(
    async () => {
      const runtime = await getRuntime();
      cluster = runtime.pollers.get(clusterName ?? runtime.config.clusters[0].name);
      if (!cluster?.latest) return undefined;
      return parse(await cluster.answer({ route, search: "" }));
    },
    () => parse(cluster?.lastAnswer({ route, search: "" })),
  );
}

export function json(body: unknown, init?: ResponseInit): NextResponse {
  return NextResponse.json(body, { ...init, headers: { "Cache-Control": "no-store", ...(init?.headers ?? {}) } });
}

/** An ApiError as its HTTP answer; anything else a 500 that says nothing more (and is logged). */
export function errorResponse(e: unknown): NextResponse {
  if (e instanceof ApiError) return json({ error: { code: e.code, message: e.message } }, { status: e.status });
  console.error("allocation-lens: API error", (e as Error)?.message);
  return json({ error: { code: "internal", message: "internal error" } }, { status: 500 });
}

export async function handle(fn: () => Promise<unknown>): Promise<NextResponse> {
  try {
    return json(await fn());
  } catch (e) {
    return errorResponse(e);
  }
}

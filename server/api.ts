import "server-only";
/** Shared plumbing of the route handlers: find the cluster's latest snapshot, map errors to HTTP answers in one place. */
import { NextResponse } from "next/server";
import { getRuntime } from "@/server/runtime";
import type { z } from "zod";
import type { Snapshot } from "@/lib/snapshot";
import type { ClusterConfig } from "@/lib/config/schema";
import { WaitRefused } from "@/lib/waiters";

const FIRST_POLL_WAIT_MS = 15_000;

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export async function clusterFor(url: string): Promise<{ snapshot: Snapshot; config: ClusterConfig }> {
  const runtime = await getRuntime();
  const requested = new URL(url).searchParams.get("cluster");
  const name = requested ?? runtime.config.clusters[0].name;
  const poller = runtime.pollers.get(name);
  if (!poller) throw new ApiError(404, "unknown_cluster", `no cluster named "${name}" in the configuration`);
  try {
    // bounded: a request waits at most 15 s for the first poll, and is refused at once when too many already wait
    return { snapshot: await poller.next(FIRST_POLL_WAIT_MS), config: poller.config };
  } catch (e) {
    if (e instanceof WaitRefused) throw new ApiError(503, "not_ready", e.message);
    throw e;
  }
}

export async function snapshotFor(url: string): Promise<Snapshot> {
  return (await clusterFor(url)).snapshot;
}

/** Query parameters validated by a zod schema; a bad one is a 400 naming the parameter. */
export function queryParams<S extends z.ZodType>(url: string, schema: S): z.output<S> {
  const params = Object.fromEntries(new URL(url).searchParams);
  const r = schema.safeParse(params);
  if (!r.success) {
    const i = r.error.issues[0];
    const what = i.code === "unrecognized_keys" ? `unknown parameter ${i.keys.join(", ")}` : `${i.path.join(".") || "query"}: ${i.message}`;
    throw new ApiError(400, "bad_request", what);
  }
  return r.data;
}

export function json(body: unknown, init?: ResponseInit): NextResponse {
  return NextResponse.json(body, { ...init, headers: { "Cache-Control": "no-store", ...(init?.headers ?? {}) } });
}

export async function handle(fn: () => Promise<unknown>): Promise<NextResponse> {
  try {
    return json(await fn());
  } catch (e) {
    if (e instanceof ApiError) return json({ error: { code: e.code, message: e.message } }, { status: e.status });
    console.error("allocation-lens: API error", (e as Error)?.message);
    return json({ error: { code: "internal", message: "internal error" } }, { status: 500 });
  }
}

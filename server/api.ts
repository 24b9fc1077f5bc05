import "server-only";
/** Shared plumbing of the route handlers: find the cluster's latest snapshot, map errors to HTTP answers in one place. */
import { NextResponse } from "next/server";
import { getRuntime } from "@/server/runtime";
import type { Snapshot } from "@/server/poller";

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export async function snapshotFor(url: string): Promise<Snapshot> {
  const runtime = await getRuntime();
  const requested = new URL(url).searchParams.get("cluster");
  const name = requested ?? runtime.config.clusters[0].name;
  const poller = runtime.pollers.get(name);
  if (!poller) throw new ApiError(404, "unknown_cluster", `no cluster named "${name}" in the configuration`);
  const timeout = new Promise<never>((_, reject) => setTimeout(() => reject(new ApiError(503, "not_ready", "the first poll has not finished yet")), 15_000));
  return Promise.race([poller.next(), timeout]);
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

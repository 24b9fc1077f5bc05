/**
 * The runtime that Next.js' instrumentation created (server/runtime.ts keeps it on globalThis), as the server entry's own
 * handlers see it: they are bundled apart from Next's bundles and never create one.
 */
import type { Runtime } from "@/server/runtime";

const RUNTIME = Symbol.for("allocation-lens.runtime");

let settled: Runtime | null = null;

/** The runtime's promise, or undefined before instrumentation has started it. */
function runtimePromise(): Promise<Runtime> | undefined {
  return (globalThis as { [RUNTIME]?: Promise<Runtime> })[RUNTIME];
}

/** The runtime once it has settled (awaited), or null when it failed or has not started. */
export async function settledRuntime(): Promise<Runtime | null> {
  settled ??= (await runtimePromise()?.catch(() => null)) ?? null;
  return settled;
}

/** The same, synchronous: null until it has settled (the first call starts watching for that). */
export function runtimeIfSettled(): Runtime | null {
  if (!settled) void runtimePromise()?.then((r) => (settled ??= r), () => undefined);
  return settled;
}

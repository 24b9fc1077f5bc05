import "server-only";
/**
 * Whether the dashboard is ready (every cluster has completed a poll), for /api/readyz. The reason it is not goes to the
 * log, once per distinct reason, and never into the answer: the probe is served to unauthenticated callers.
 */
import { getRuntime, type Runtime } from "@/server/runtime";

const WAIT_MS = 1_000;
const KEY = Symbol.for("allocation-lens.readiness-logged");
type Holder = { [KEY]?: string };

function logOnce(reason: string): void {
  const holder = globalThis as Holder;
  if (holder[KEY] === reason) return;
  holder[KEY] = reason;
  console.error(`allocation-lens: not ready: ${reason}`);
}

/** The reason the runtime is not ready, or null when it is. */
export async function notReadyReason(): Promise<string | null> {
  let timer: NodeJS.Timeout | undefined;
  let runtime: Runtime | null;
  try {
    runtime = await Promise.race([getRuntime(), new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), WAIT_MS)))]);
  } catch (e) {
    return `the runtime failed to start: ${(e as Error)?.message ?? e}`;
  } finally {
    clearTimeout(timer);
  }
  if (!runtime) return "the runtime is still starting (configuration, demo cluster)";
  const waiting = [...runtime.pollers].filter(([, p]) => !p.latest).map(([name]) => name);
  return waiting.length ? `waiting for the first poll of ${waiting.join(", ")}` : null;
}

export async function readiness(): Promise<boolean> {
  const reason = await notReadyReason();
  const holder = globalThis as Holder;
  if (reason === null) {
    if (holder[KEY] !== undefined) console.log("allocation-lens: ready");
    holder[KEY] = undefined;
    return true;
  }
  logOnce(reason);
  return false;
}

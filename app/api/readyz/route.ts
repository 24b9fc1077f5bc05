import { json } from "@/server/api";
import { getRuntime, type Runtime } from "@/server/runtime";

export const dynamic = "force-dynamic";

const WAIT_MS = 1_000;

/** Readiness: 200 once the runtime has started and every cluster has completed a poll; 503 with the reason otherwise. Never waits for a poll. */
export async function GET() {
  let timer: NodeJS.Timeout | undefined;
  let runtime: Runtime | null;
  try {
    runtime = await Promise.race([getRuntime(), new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), WAIT_MS)))]);
  } catch (e) {
    return json({ status: "not_ready", reason: `the runtime failed to start: ${(e as Error)?.message ?? e}` }, { status: 503 });
  } finally {
    clearTimeout(timer);
  }
  if (!runtime) return json({ status: "not_ready", reason: "the runtime is still starting (configuration, demo cluster)" }, { status: 503 });
  const clusters = [...runtime.pollers].map(([name, p]) => ({ name, lastPoll: p.latest?.at ?? null }));
  const waiting = clusters.filter((c) => c.lastPoll === null).map((c) => c.name);
  if (waiting.length) return json({ status: "not_ready", reason: `waiting for the first poll of ${waiting.join(", ")}`, clusters }, { status: 503 });
  return json({ status: "ready", clusters });
}

import { handle, snapshotFor } from "@/server/api";
import { getRuntime } from "@/server/runtime";
import { historyFor } from "@/server/history/registry";
import { rankFlapping } from "@/lib/analysis/readiness";
import type { ChurnLike } from "@/lib/analysis/diagnostics";
import { diagnosticsOptions, toDiagnosticsView } from "@/lib/views/diagnostics";

/** Readiness flapping is judged over this window. */
const FLAP_WINDOW_MS = 15 * 60_000;

/** Flapping collectors from the churn history; null (the check reads "unknown") when there is no history. */
function churnOf(cluster: string, now: number): ChurnLike | null {
  const history = historyFor(cluster);
  if (!history) return null;
  try {
    return { flapping: rankFlapping(history.store.readiness(cluster, { from: now - FLAP_WINDOW_MS, to: now }, 10_000)) };
  } catch {
    return null;
  }
}

export async function GET(request: Request) {
  return handle(async () => {
    const snapshot = await snapshotFor(request.url);
    const cluster = (await getRuntime()).config.clusters.find((c) => c.name === snapshot.cluster);
    return toDiagnosticsView(snapshot, churnOf(snapshot.cluster, Date.now()), cluster ? diagnosticsOptions(cluster.targetAllocators) : {});
  });
}

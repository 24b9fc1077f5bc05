import "server-only";
/**
 * The answers of the cluster API routes, computed where the snapshot lives: in the poll worker (server/poll/worker.ts),
 * never on the thread that serves HTTP. Each route handler validates its query early, then asks its cluster's handle
 * (server/poll/host.ts) for the answer by route name; the handle sends the question here and gets JSON bytes back.
 * Routes whose answer has no parameters are computed once per poll and pushed to the serving thread with the poll's
 * news (PUSHED_ROUTES), so a page load never waits for the worker.
 */
import type { ClusterConfig, Config } from "@/lib/config/schema";
import type { Snapshot } from "@/lib/snapshot";
import { freshness, toSummaryView } from "@/lib/views/summary";
import { nodesViewFor, toNodeDetail } from "@/lib/views/nodes";
import { toCollectorsView } from "@/lib/views/collectors";
import { toLostView } from "@/lib/views/lost";
import { toOwnershipView } from "@/lib/views/monitors";
import { diagnosticsOptions, toDiagnosticsView } from "@/lib/views/diagnostics";
import { pageTargets, targetQuerySchema } from "@/lib/views/targets";
import { ApiError, queryParams } from "@/server/api-error";
import { churnAnswer, flappingFor } from "@/server/history/churn-service";
import { historyFor } from "@/server/history/registry";
import { alertsAnswer } from "@/server/alerts/service";

import { ANSWER_ROUTES, PUSHED_ROUTES, type AnswerQuestion, type AnswerRoute } from "@/server/poll/protocol";

export { ANSWER_ROUTES, PUSHED_ROUTES, type AnswerQuestion, type AnswerRoute };


export interface AnswerContext {
  snapshot: Snapshot;
  cluster: ClusterConfig;
  config: Pick<Config, "history" | "alerts">;
}

/** Everything but `cluster`, sorted: the same question asked two ways has one key. */
export function questionKey(q: AnswerQuestion): string {
  const params = [...new URLSearchParams(q.search)].filter(([k]) => k !== "cluster").sort(([a, av], [b, bv]) => (a === b ? (av < bv ? -1 : 1) : a < b ? -1 : 1));
  return JSON.stringify([q.route, q.name ?? null, params]);
}

export async function computeAnswer(q: AnswerQuestion, ctx: AnswerContext, now = Date.now()): Promise<unknown> {
  const { snapshot: s, cluster } = ctx;
  const search = new URLSearchParams(q.search);
  switch (q.route) {
    case "summary":
      return toSummaryView(s);
    case "nodes":
      return nodesViewFor(s.analysis, freshness(s));
    case "node": {
      const detail = toNodeDetail(s.analysis, freshness(s), q.name ?? "");
      if (!detail) throw new ApiError(404, "unknown_node", `no node named "${q.name}" in cluster ${s.cluster}`);
      return detail;
    }
    case "collectors":
      return toCollectorsView(s.analysis, freshness(s));
    case "lost":
      return toLostView(s.analysis, freshness(s));
    case "monitors":
      return toOwnershipView(s.analysis, freshness(s));
    case "diagnostics":
      return toDiagnosticsView(s, await flappingFor(s, now), diagnosticsOptions(cluster.targetAllocators));
    case "targets": {
      const query = queryParams(search, targetQuerySchema);
      return { ...freshness(s), cluster: s.cluster, ...pageTargets(s.analysis.targets, query) };
    }
    case "alerts":
      return alertsAnswer(s, cluster, ctx.config, now);
    case "churn": {
      const history = historyFor(s.cluster);
      if (!history) throw new ApiError(503, "history_unavailable", `no churn history for cluster "${s.cluster}"`);
      return churnAnswer(search, now, { snapshot: s, history, config: ctx.config });
    }
  }
}

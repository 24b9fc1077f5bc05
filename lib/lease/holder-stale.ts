/**
 * An answer a replica serves for a cluster it does not poll, when the replica that polls it (the Lease's holder) cannot
 * be reached: the last answer it had, with the holder named as a stale source in `stale` (and in `sources`, for the
 * summary), so that the UI's banner says so and shows the data's age as usual.
 */
import type { SourceView } from "@/lib/api/schemas";
import type { SourceErrorKind } from "@/lib/source-error";

/** The source name of the replica polling a cluster, as answers show it. */
export const holderSource = (cluster: string) => `${cluster}/holder`;

export interface HolderProblem {
  cluster: string;
  kind: SourceErrorKind;
  message: string;
  /** when an answer last came from the holder (ms), null when never */
  lastSuccess: number | null;
}

export function holderSourceView(p: HolderProblem): SourceView {
  const source = holderSource(p.cluster);
  return {
    source,
    state: p.lastSuccess === null ? "error" : "stale",
    lastSuccess: p.lastSuccess,
    latencyMs: null,
    error: {
      source,
      kind: p.kind,
      message: p.message,
      hint: "the replica polling this cluster (the holder of its Lease) is unreachable: this replica shows the last answer it had; another replica takes the Lease over once it runs out",
    },
  };
}

type WithSources = { stale?: unknown; sources?: unknown };

/** `body` (a view answer) with the holder's problem in its `stale` list (and `sources`, when it has one), replacing an earlier one. */
export function withHolderStale<T>(body: T, p: HolderProblem): T {
  if (!body || typeof body !== "object" || Array.isArray(body)) return body;
  const view = holderSourceView(p);
  const merge = (list: unknown) => [...(Array.isArray(list) ? (list as SourceView[]).filter((s) => s?.source !== view.source) : []), view];
  const b = body as WithSources;
  const out: WithSources = { ...b, stale: merge(b.stale) };
  if (Array.isArray(b.sources)) out.sources = merge(b.sources);
  return out as T;
}

"use client";
/**
 * The states every view shares, in one place:
 *
 * - `ViewState` takes a view's query and renders, in order: its skeleton while the first answer loads (also while the
 *   server's first poll of the cluster is pending: a 503, with a note), the error state when there is no data and the
 *   request failed (with a retry; for a cluster the configuration does not have, the clusters it has instead), else the
 *   view itself through a render prop, handing it the banners (a failed refetch, failing sources) and the data's age to
 *   place in its head. Polling never swaps the view for the skeleton again: the last answer stays on screen with the
 *   refresh banner.
 * - `ListState` picks a list's body: unknown (its source never answered), empty (nothing there), filtered to nothing (the
 *   filters hide everything: `FilteredOut`, with the hidden count and a way back), or the list.
 */
import type { ReactNode } from "react";
import type { SourceView } from "@/lib/views/summary";
import { plural } from "@/lib/format";
import { ApiFetchError, isUnknownCluster } from "@/components/data/queries";
import { DataAge } from "@/components/ui/DataAge";
import { EmptyState, ErrorState, type PanelContent } from "@/components/ui/Panel";
import { RefreshBanner } from "@/components/ui/RefreshBanner";
import { StaleBanner } from "@/components/ui/StaleBanner";
import { UnknownClusterState } from "@/components/ui/UnknownCluster";

/** What ViewState reads of a react-query result (a result can be passed as is). */
export interface ViewQuery<T> {
  data: T | undefined;
  error: Error | null;
  isPlaceholderData?: boolean;
  refetch?: () => unknown;
}

/** Every view answer says when it was computed and which sources failed (answers reshaped for a part may not). */
export interface Fresh {
  at: number;
  pollIntervalMs?: number;
  stale?: readonly SourceView[];
}

export type ViewPhase = "loading" | "waiting" | "error" | "data";

/** Which state a view is in. `waiting`: no data yet because the server has not finished its first poll (503). */
export function viewPhase(q: Pick<ViewQuery<unknown>, "data" | "error">): ViewPhase {
  if (q.data !== undefined) return "data";
  if (!q.error) return "loading";
  return q.error instanceof ApiFetchError && q.error.status === 503 ? "waiting" : "error";
}

/** Handed to the view with its data. */
export interface ViewStatus {
  /** the refresh and stale-source banners, for the view to place under its head (nothing when all is well) */
  banners: ReactNode;
  /** "updated 4 s ago", for the view's head */
  age: ReactNode;
  /** the last refetch failed: the data shown is the last answer */
  refreshError: Error | null;
  /** the answer shown belongs to the previous parameters while the new one loads */
  updating: boolean;
}

interface ViewStateProps<T extends Fresh> {
  query: ViewQuery<T>;
  /** the request, named by the error and refresh messages: "GET /api/v1/collectors" */
  api: string;
  /** shaped like the view, so nothing jumps when the data arrives; given a note while the first poll is pending */
  skeleton: ReactNode | ((note: string | null) => ReactNode);
  /** the failing sources this view names (default: all of the answer's `stale`) */
  stale?: (data: T) => readonly SourceView[];
  /** a special error state for some errors (a 404 as "not found"); undefined for the default */
  failed?: (error: Error) => ReactNode | undefined;
  /** the error state's title (default "Could not load this view") */
  errorTitle?: string;
  /** a way out under the error state, beside the retry */
  errorAction?: ReactNode;
  children: (data: T, status: ViewStatus) => ReactNode;
}

export function ViewState<T extends Fresh>({ query, api, skeleton, stale, failed, errorTitle, errorAction, children }: ViewStateProps<T>) {
  const phase = viewPhase(query);
  const skeletonWith = (note: string | null) => (typeof skeleton === "function" ? skeleton(note) : <>{note ? <SkeletonNote note={note} /> : null}{skeleton}</>);
  if (phase === "loading") return skeletonWith(null);
  if (phase === "waiting") return skeletonWith(`Waiting for the first poll of this cluster (${query.error!.message}); retrying.`);
  if (phase === "error") {
    const error = query.error!;
    if (isUnknownCluster(error)) return <UnknownClusterState />;
    const special = failed?.(error);
    if (special !== undefined) return <>{special}</>;
    const retry = query.refetch ? (
      <button type="button" className="btn" onClick={() => void query.refetch?.()}>
        Retry now
      </button>
    ) : null;
    return (
      <ErrorState
        title={errorTitle}
        message={`${api}: ${error.message}`}
        action={
          retry || errorAction ? (
            <>
              {retry}
              {errorAction}
            </>
          ) : undefined
        }
      />
    );
  }
  const data = query.data!;
  const refreshError = query.error;
  const banners = (
    <>
      <RefreshBanner api={api} error={refreshError} at={data.at} />
      <StaleBanner stale={stale ? stale(data) : (data.stale ?? [])} />
    </>
  );
  return <>{children(data, { banners, age: <DataAge at={data.at} pollIntervalMs={data.pollIntervalMs} />, refreshError, updating: Boolean(query.isPlaceholderData) }) ?? null}</>;
}

/** Why a skeleton is still up, in its head: "Waiting for the first poll of this cluster...". */
export function SkeletonNote({ note }: { note: string | null | undefined }) {
  if (!note) return null;
  return (
    <p role="status" className="age skeleton-note">
      {note}
    </p>
  );
}

interface ListStateProps {
  /** set when the list cannot be known (its source never answered): shown instead of everything else */
  unknown?: ReactNode;
  /** nothing there at all */
  empty: boolean;
  /** there is something, but the filters hide all of it (checked after `empty`) */
  filteredOut?: boolean;
  emptyState: ReactNode;
  /** usually a FilteredOut */
  filteredState?: ReactNode;
  /** the height the list usually takes, kept by the other states so the page does not jump while polling */
  minHeight?: number;
  /** the list (omitted where the caller renders the list itself and asks only for the other states) */
  children?: PanelContent;
}

export function ListState({ unknown, empty, filteredOut, emptyState, filteredState, minHeight, children }: ListStateProps) {
  let body: ReactNode;
  if (unknown) body = unknown;
  else if (empty) body = emptyState;
  else if (filteredOut) body = filteredState;
  else return <>{typeof children === "function" ? children() : children}</>;
  return minHeight ? <div style={{ minHeight }}>{body}</div> : <>{body}</>;
}

interface FilteredOutProps {
  title: string;
  /** how many the filters hide, and what they are ("12 nodes hidden by the filters.") */
  hidden?: number;
  noun?: string;
  by?: string;
  /** replaces the hidden-count sentence */
  hint?: string;
  clearLabel?: string;
  onClear: () => void;
}

/** The filtered-to-nothing state: nothing matches, how much is hidden, and the way back. */
export function FilteredOut({ title, hidden, noun = "item", by = "the filters", hint, clearLabel = "Clear filters", onClear }: FilteredOutProps) {
  return (
    <EmptyState
      title={title}
      hint={hint ?? (hidden === undefined ? undefined : `${plural(hidden, noun)} hidden by ${by}.`)}
      action={
        <button type="button" className="btn" onClick={onClear}>
          {clearLabel}
        </button>
      }
    />
  );
}

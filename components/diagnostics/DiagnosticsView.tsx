"use client";
/**
 * Diagnostics: every automated check of the cluster's latest snapshot, failures first, each with its evidence, its fix
 * and the view that explains it. The counts in the header filter by status (URL: ?status=fail,warn).
 */
import { useSearchParams } from "next/navigation";
import { allPass, countsSentence, filterChecks, statusPhrase } from "@/lib/views/diagnostics-view";
import { useDiagnostics } from "@/components/data/churn-queries";
import { DataAge } from "@/components/ui/DataAge";
import { EmptyState, ErrorState } from "@/components/ui/Panel";
import { StaleBanner } from "@/components/ui/StaleBanner";
import { CheckItem } from "./CheckItem";
import { DiagnosticsEmbedList } from "./DiagnosticsEmbed";
import { DiagnosticsSkeleton } from "./DiagnosticsSkeleton";
import { StatusFilter } from "./StatusFilter";
import { StatusGlyph } from "./StatusIcon";
import { useStatusFilter } from "./useStatusFilter";
import styles from "./diagnostics.module.css";
import { RefreshBanner } from "@/components/ui/RefreshBanner";

export function DiagnosticsView({ embed = false }: { embed?: boolean }) {
  const q = useDiagnostics();
  const filter = useStatusFilter();
  const search = useSearchParams();
  if (q.isPending) return <DiagnosticsSkeleton embed={embed} />;
  if (q.isError && !q.data) return <ErrorState message={`Diagnostics (GET /api/v1/diagnostics): ${q.error.message}`} />;
  const v = q.data!;
  const keep = new URLSearchParams();
  for (const k of ["cluster", "theme"]) if (search.get(k)) keep.set(k, search.get(k)!);
  const { shown, hidden } = filterChecks(v.checks, filter.statuses);
  const good = allPass(v.counts);

  let list;
  if (!v.checks.length) list = <EmptyState title="No checks yet" hint="The first poll of this cluster has not finished." />;
  else if (!shown.length) {
    list = (
      <EmptyState
        title={`No ${statusPhrase(filter.statuses)} checks`}
        hint={`${hidden} check${hidden === 1 ? "" : "s"} hidden by the status filter.`}
        action={
          <button type="button" className="btn" onClick={filter.clear}>
            Show all checks
          </button>
        }
      />
    );
  } else if (embed) list = <DiagnosticsEmbedList checks={shown} />;
  else {
    list = (
      <ul className={styles.list} aria-label="Checks">
        {shown.map((c) => (
          <CheckItem key={c.id} check={c} keep={keep} />
        ))}
      </ul>
    );
  }

  return (
    <div className={embed ? styles.embed : undefined}>
      <div className="page-head">
        {embed ? <strong className={styles.embedTitle}>Diagnostics</strong> : <h1>Diagnostics</h1>}
        {embed ? null : (
          <p>
            {v.checks.length} automated checks of {v.cluster}
          </p>
        )}
        {good && embed ? (
          <span className={styles.allPass} role="status">
            <StatusGlyph status="pass" size={14} />
            All {v.counts.pass} checks pass
          </span>
        ) : null}
        <span style={{ marginLeft: "auto" }}>
          <DataAge at={v.at} pollIntervalMs={v.pollIntervalMs} />
        </span>
      </div>
      <StaleBanner stale={v.stale} />
      <RefreshBanner api="GET /api/v1/diagnostics" error={q.isError ? q.error : null} at={v.at} />
      <div className={styles.bar}>
        <StatusFilter counts={v.counts} selected={filter.statuses} onToggle={filter.toggle} onClear={filter.clear} compact={embed} />
        <span className="sr-only" aria-live="polite">
          {countsSentence(v.counts)}
        </span>
        {good && !embed ? (
          <span className={styles.allPass} role="status">
            <StatusGlyph status="pass" size={16} />
            All {v.counts.pass} checks pass
          </span>
        ) : null}
      </div>
      {list}
    </div>
  );
}

"use client";
/**
 * Diagnostics: every automated check of the cluster's latest snapshot, failures first, each with its evidence, its fix
 * and the view that explains it. The counts in the header filter by status (URL: ?status=fail,warn).
 */
import { useSearchParams } from "next/navigation";
import { allPass, countsSentence, filterChecks, statusPhrase } from "@/lib/views/diagnostics-view";
import { useDiagnostics } from "@/components/data/churn-queries";
import type { DiagnosticsView as DiagnosticsData } from "@/lib/views/diagnostics";
import { EmptyState } from "@/components/ui/Panel";
import { FilteredOut, ListState, ViewState, type ViewStatus } from "@/components/ui/ViewState";
import { CheckItem } from "./CheckItem";
import { DiagnosticsEmbedList } from "./DiagnosticsEmbed";
import { DiagnosticsSkeleton } from "./DiagnosticsSkeleton";
import { DiscoveryPanel } from "./DiscoveryPanel";
import { StatusFilter } from "./StatusFilter";
import { StatusGlyph } from "./StatusIcon";
import { useStatusFilter } from "./useStatusFilter";
import styles from "./diagnostics.module.css";
import { keptParams } from "@/lib/views/cluster-link";

export function DiagnosticsView({ embed = false }: { embed?: boolean }) {
  const q = useDiagnostics();
  return (
    <ViewState query={q} api="GET /api/v1/diagnostics" skeleton={(note) => <DiagnosticsSkeleton embed={embed} note={note} />}>
      {(v, status) => <DiagnosticsBody v={v} status={status} embed={embed} />}
    </ViewState>
  );
}

function DiagnosticsBody({ v, status, embed }: { v: DiagnosticsData; status: ViewStatus; embed: boolean }) {
  const filter = useStatusFilter();
  const search = useSearchParams();
  const keep = keptParams(search);
  const { shown, hidden } = filterChecks(v.checks, filter.statuses);
  const good = allPass(v.counts);

  const list = (
    <ListState
      empty={!v.checks.length}
      filteredOut={!shown.length}
      emptyState={<EmptyState title="No checks yet" hint="The first poll of this cluster has not finished." />}
      filteredState={<FilteredOut title={`No ${statusPhrase(filter.statuses)} checks`} hidden={hidden} noun="check" by="the status filter" clearLabel="Show all checks" onClear={filter.clear} />}
    >
      {embed ? (
        <DiagnosticsEmbedList checks={shown} />
      ) : (
        <ul className={styles.list} aria-label="Checks">
          {shown.map((c) => (
            <CheckItem key={c.id} check={c} keep={keep} />
          ))}
        </ul>
      )}
    </ListState>
  );

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
        <span style={{ marginLeft: "auto" }}>{status.age}</span>
      </div>
      {status.banners}
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
      {v.discovery && !embed ? <DiscoveryPanel d={v.discovery} /> : null}
    </div>
  );
}

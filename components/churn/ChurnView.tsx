"use client";
/**
 * Churn: collector readiness transitions and target reassignments over a time range (URL: ?range=1h or ?from=&to=, and
 * ?role=), with the locality / ghosts / unassigned series, the flapping collectors, the reassignment hot spots and the
 * latest readiness events.
 */
import { usePathname, useSearchParams } from "next/navigation";
import { ROLES, type Role } from "@/lib/model";
import type { ChurnView as ChurnData } from "@/lib/views/churn";
import { byRole, localOnlyNote } from "@/lib/views/churn-view";
import { RANGES, rangeKeys, widerRange } from "@/lib/views/churn-ranges";
import { localityLines, seriesRoles, seriesRows, timelineRows, timelineTotals } from "@/lib/views/churn-charts";
import { churnParams, useChurn } from "@/components/data/churn-queries";
import { Panel } from "@/components/ui/Panel";
import { ViewState, type ViewStatus } from "@/components/ui/ViewState";
import { ChurnEmbed } from "./ChurnEmbed";
import { ChurnSkeleton } from "./ChurnSkeleton";
import { EventsList } from "./EventsList";
import { FlappingTable } from "./FlappingTable";
import { HistoryBackendBadge, HistoryBackendBanner, HistorySourceBadge, HistorySourceBanner } from "./HistoryBackend";
import { HotSpots } from "./HotSpots";
import { RangePicker } from "./RangePicker";
import { RoleChips } from "./RoleChips";
import { SeriesCharts } from "./SeriesCharts";
import { TimelineChart } from "./TimelineChart";
import { TimelineEmpty } from "./TimelineEmpty";
import { useChurnUrl } from "./useChurnUrl";
import styles from "./churn.module.css";
import { formatCount, spansDays } from "@/lib/format";
import { keptParams } from "@/lib/views/cluster-link";

/** Roles the cluster has, from the series (every poll records each role) and the timeline. */
function rolesOf(v: ChurnData): Role[] {
  const seen = new Set<Role>(seriesRoles(v.series));
  for (const b of v.timeline) for (const r of ROLES) if (b.byRole[r]) seen.add(r);
  return ROLES.filter((r) => seen.has(r));
}

export function ChurnView({ embed = false }: { embed?: boolean }) {
  const url = useChurnUrl();
  const q = useChurn(churnParams(url.request));
  const back =
    url.request.kind === "custom" ? (
      <button type="button" className="btn" onClick={() => url.setRange("1h")}>
        Back to the last hour
      </button>
    ) : null;
  return (
    <ViewState query={q} api="GET /api/v1/churn" skeleton={(note) => <ChurnSkeleton embed={embed} note={note} />} errorAction={back}>
      {(v, status) => <ChurnBody v={v} status={status} url={url} embed={embed} />}
    </ViewState>
  );
}

function ChurnBody({ v, status, url, embed }: { v: ChurnData; status: ViewStatus; url: ReturnType<typeof useChurnUrl>; embed: boolean }) {
  const pathname = usePathname();
  const search = useSearchParams();

  const keep = keptParams(search);
  const nodesPath = pathname.startsWith("/embed") ? "/embed/nodes" : "/nodes";
  const nodeHref = (node: string) => {
    const p = new URLSearchParams(keep);
    p.set("node", node);
    return `${nodesPath}?${p}`;
  };

  const allRoles = rolesOf(v);
  const role = url.role && allRoles.includes(url.role) ? url.role : null;
  const roles = role ? [role] : allRoles;
  const showRole = !role && allRoles.length > 1;
  const multiDay = spansDays(v.from, v.to);
  const phrase = url.request.kind === "preset" ? RANGES[url.request.key].phrase : "this range";
  const rows = timelineRows(v.timeline, v.to, role);
  const all = timelineTotals(timelineRows(v.timeline, v.to, null));
  const shown = timelineTotals(rows);
  const prometheus = Boolean(v.source?.prometheus);
  const wider = url.request.kind === "preset" ? widerRange(url.request.key, prometheus) : "1h";
  const empty =
    shown.readiness + shown.reassignments === 0 ? (
      <TimelineEmpty phrase={phrase} role={role} hidden={all} wider={wider} custom={url.request.kind === "custom"} onRange={url.setRange} onShowAllRoles={() => url.setRole(null)} />
    ) : null;
  const flapping = byRole(v.flapping, role);
  const picker = (
    <RangePicker request={url.request} shown={{ from: v.from, to: v.to }} onPreset={url.setRange} onCustom={url.setCustom} keys={rangeKeys(prometheus)} compact={embed} />
  );
  const updating = <span className={styles.updating} aria-live="polite">{status.updating ? "updating…" : ""}</span>;

  if (embed) {
    return <ChurnEmbed v={v} status={status} rows={rows} roles={roles} multiDay={multiDay} empty={empty} flapping={flapping.shown} picker={picker} nodeHref={nodeHref} />;
  }

  const events = byRole(v.events, role);
  // events and hot spots always come from the local store: say what they cover when Prometheus answered the rest
  const localNote = localOnlyNote(v.source, v.from, v.to);
  const withNote = (text: string) =>
    localNote ? (
      <span className="age" title={localNote.title}>
        {text} · {localNote.text}
      </span>
    ) : (
      <span className="age">{text}</span>
    );
  return (
    <div>
      <div className={`page-head ${styles.head}`}>
        <h1>Churn</h1>
        <p>readiness transitions and target reassignments, {phrase}</p>
        <div className={styles.headRight}>
          {updating}
          {allRoles.length > 1 ? <RoleChips roles={allRoles} role={role} onRole={url.setRole} /> : null}
          {picker}
          <HistorySourceBadge source={v.source} />
          <HistoryBackendBadge backend={v.backend} />
          {status.age}
        </div>
      </div>
      <HistorySourceBanner source={v.source} />
      <HistoryBackendBanner backend={v.backend} />
      {status.banners}
      <div className={styles.stack}>
        <div className={styles.top}>
          <Panel title="Timeline">
            <TimelineChart rows={rows} roles={roles} multiDay={multiDay} empty={empty} />
          </Panel>
          <Panel title="Locality, ghosts and unassigned">
            <SeriesCharts rows={seriesRows(v.series)} locality={localityLines(roles.filter((r) => seriesRoles(v.series).includes(r)))} multiDay={multiDay} />
          </Panel>
        </div>
        <div className={styles.pair}>
          <Panel title="Flapping collectors" right={<span className="age">readiness flips in range</span>}>
            <FlappingTable flappers={flapping.shown} hidden={flapping.hidden} role={role} showRole={showRole} phrase={phrase} multiDay={multiDay} nodeHref={nodeHref} onShowAllRoles={() => url.setRole(null)} />
          </Panel>
          <Panel title="Reassignment hot spots" right={withNote(`${formatCount(v.reassignments.total)} targets moved`)}>
            <HotSpots totals={v.reassignments} role={role} showRole={showRole} phrase={phrase} nodeHref={nodeHref} onShowAllRoles={() => url.setRole(null)} />
          </Panel>
        </div>
        <Panel
          title="Latest readiness events"
          right={withNote(v.eventsInRange > v.events.length ? `latest ${v.events.length} of ${formatCount(v.eventsInRange)} in range` : `${v.eventsInRange} in range`)}
        >
          <EventsList events={events.shown} hidden={events.hidden} role={role} showRole={showRole} phrase={phrase} multiDay={multiDay} nodeHref={nodeHref} onShowAllRoles={() => url.setRole(null)} />
        </Panel>
      </div>
    </div>
  );
}

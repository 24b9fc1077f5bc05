"use client";
import type { Role } from "@/lib/model";
import type { MonitorRow } from "@/lib/analysis/types";
import type { OwnershipView as View } from "@/lib/views/monitors";
import { ROLES } from "@/lib/model";
import { useOwnership } from "@/components/data/queries";
import { DataAge } from "@/components/ui/DataAge";
import { StaleBanner } from "@/components/ui/StaleBanner";
import { EmptyState, ErrorState, Panel } from "@/components/ui/Panel";
import { dependencyNotice, filterMonitors, splitShares } from "@/lib/views/ownership-view";
import { MonitorTable } from "./MonitorTable";
import { MonitorToolbar } from "./MonitorToolbar";
import { OwnershipSkeleton } from "./OwnershipSkeleton";
import { RefreshBanner } from "@/components/ui/RefreshBanner";
import { RoleSplit } from "./RoleSplit";
import { RoutingRule } from "./RoutingRule";
import { useMonitorFilter } from "./useMonitorFilter";
import s from "./ownership.module.css";

const API = "/api/v1/monitors";

/** Monitor ownership: how monitors and targets split between the agents, and every monitor's owner and state. */
export function OwnershipView({ embed = false }: { embed?: boolean }) {
  const q = useOwnership();
  const filterApi = useMonitorFilter();
  if (q.isPending) return <OwnershipSkeleton embed={embed} />;
  if (q.isError && !q.data) return <ErrorState message={`${API}: ${q.error.message}`} />;
  const v = q.data!;
  const roles = ROLES.filter((r) => v.split.some((p) => p.role === r)) as Role[];
  const notice = dependencyNotice(v);
  const shown = filterMonitors(v.monitors, filterApi.filter);
  const hidden = v.monitors.length - shown.length;
  const staleOthers = v.stale.filter((x) => !/\/kube\/(service|pod)monitors$/.test(x.source));

  return (
    <div className={embed ? s.embed : undefined}>
      <div className="page-head">
        {embed ? <h1 className={s.embedTitle}>Monitor ownership</h1> : <h1>Monitor ownership</h1>}
        {embed ? null : <p>{v.cluster}: which agent&apos;s TA scrapes each ServiceMonitor and PodMonitor</p>}
        <span style={{ marginLeft: "auto" }}>
          <DataAge at={v.at} pollIntervalMs={v.pollIntervalMs} />
        </span>
      </div>
      <RefreshBanner api={API} error={q.isError ? q.error : null} at={v.at} />
      <StaleBanner stale={staleOthers} />
      {notice ? (
        <div className={`banner ${notice.severity === "unavailable" ? "bad" : "warn"}`} role="status">
          <div>
            <strong>{notice.title}</strong>
            {notice.hint}
          </div>
        </div>
      ) : null}
      {embed ? null : <RoutingRule roles={roles} annotationKey={v.annotationKey} />}
      <div className={embed ? s.stack : s.layout}>
        <Panel title="Split between the agents">
          <RoleSplit parts={splitShares(v.split)} doubles={v.counts?.double ?? 0} monitorsKnown={v.available} compact={embed} />
        </Panel>
        <Panel
          title="Monitors"
          right={
            v.available ? (
              <span className="age">
                {hidden > 0 ? `${shown.length} of ${v.monitors.length}` : v.monitors.length} monitor{v.monitors.length === 1 ? "" : "s"}
              </span>
            ) : null
          }
        >
          {v.available ? <MonitorToolbar api={filterApi} counts={v.counts} roles={roles} /> : null}
          <MonitorsBody v={v} shown={shown} hidden={hidden} clear={filterApi.clear} roles={roles} embed={embed} />
        </Panel>
      </div>
    </div>
  );
}

interface BodyProps {
  v: View;
  shown: MonitorRow[];
  hidden: number;
  roles: Role[];
  embed: boolean;
  clear: () => void;
}

/** The table, or which of the three non-data states applies (unavailable, nothing there, filtered to nothing). */
function MonitorsBody({ v, shown, hidden, roles, embed, clear }: BodyProps) {
  if (!v.available) {
    return <EmptyState title="No monitor can be listed" hint="Ownership needs the ServiceMonitor and PodMonitor lists (see above). The static jobs of each TA are not affected." />;
  }
  if (v.monitors.length === 0) return <EmptyState title="No ServiceMonitors or PodMonitors in this cluster" hint="Only the static jobs of each TA are scraped." />;
  if (shown.length === 0) {
    return (
      <EmptyState
        title={`No monitor matches these filters (${hidden} hidden)`}
        action={
          <button type="button" className="btn" onClick={clear}>
            Clear filters
          </button>
        }
      />
    );
  }
  return <MonitorTable rows={shown} roles={roles} annotationKey={v.annotationKey} compact={embed} />;
}

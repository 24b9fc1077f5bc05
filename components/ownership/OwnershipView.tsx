"use client";
import type { Role } from "@/lib/model";
import type { MonitorRow } from "@/lib/analysis/types";
import type { OwnershipView as View } from "@/lib/views/monitors";
import { ROLES } from "@/lib/model";
import { useOwnership } from "@/components/data/queries";
import { EmptyState, Panel } from "@/components/ui/Panel";
import { FilteredOut, ListState, ViewState, type ViewStatus } from "@/components/ui/ViewState";
import { dependencyNotice, filterMonitors, splitShares } from "@/lib/views/ownership-view";
import { MonitorTable } from "./MonitorTable";
import { MonitorToolbar } from "./MonitorToolbar";
import { OwnershipSkeleton } from "./OwnershipSkeleton";
import { RoleSplit } from "./RoleSplit";
import { RoutingRule } from "./RoutingRule";
import { useMonitorFilter } from "./useMonitorFilter";
import s from "./ownership.module.css";

const API = "GET /api/v1/monitors";

/** Monitor ownership: how monitors and targets split between the agents, and every monitor's owner and state. */
export function OwnershipView({ embed = false }: { embed?: boolean }) {
  const q = useOwnership();
  const filterApi = useMonitorFilter();
  return (
    // the monitor lists' own failure is the dependency notice below, not a stale banner
    <ViewState query={q} api={API} skeleton={(note) => <OwnershipSkeleton embed={embed} note={note} />} stale={(v) => v.stale.filter((x) => !/\/kube\/(service|pod)monitors$/.test(x.source))}>
      {(v, status) => <OwnershipBody v={v} status={status} filterApi={filterApi} embed={embed} />}
    </ViewState>
  );
}

function OwnershipBody({ v, status, filterApi, embed }: { v: View; status: ViewStatus; filterApi: ReturnType<typeof useMonitorFilter>; embed: boolean }) {
  const roles = ROLES.filter((r) => v.split.some((p) => p.role === r)) as Role[];
  const notice = dependencyNotice(v);
  const shown = filterMonitors(v.monitors, filterApi.filter);
  const hidden = v.monitors.length - shown.length;

  return (
    <div className={embed ? s.embed : undefined}>
      <div className="page-head">
        {embed ? <h1 className={s.embedTitle}>Monitor ownership</h1> : <h1>Monitor ownership</h1>}
        {embed ? null : <p>{v.cluster}: which agent&apos;s TA scrapes each ServiceMonitor and PodMonitor</p>}
        <span style={{ marginLeft: "auto" }}>{status.age}</span>
      </div>
      {status.banners}
      {notice ? (
        <div className={`banner ${notice.severity === "unavailable" ? "bad" : "warn"}`} role="status">
          <div>
            <strong>{notice.title}</strong>
            {notice.hint}
          </div>
        </div>
      ) : null}
      {embed ? null : <RoutingRule roles={roles} annotationKeys={v.annotationKeys} configured={v.annotationKeyConfigured} />}
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
  return (
    <ListState
      unknown={v.available ? null : <EmptyState title="No monitor can be listed" hint="Ownership needs the ServiceMonitor and PodMonitor lists (see above). The static jobs of each TA are not affected." />}
      empty={v.monitors.length === 0}
      filteredOut={shown.length === 0}
      emptyState={<EmptyState title="No ServiceMonitors or PodMonitors in this cluster" hint="Only the static jobs of each TA are scraped." />}
      filteredState={<FilteredOut title="No monitor matches these filters" hidden={hidden} noun="monitor" onClear={clear} />}
    >
      <MonitorTable rows={shown} roles={roles} annotationKeys={v.annotationKeys} compact={embed} />
    </ListState>
  );
}

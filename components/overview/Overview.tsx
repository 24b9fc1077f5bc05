"use client";
import type { SummaryView } from "@/lib/views/summary";
import { OWNERSHIPS, ROLES } from "@/lib/model";
import { OWNERSHIP_LABEL, OWNERSHIP_TONE } from "@/lib/views/ownership-view";
import { ROLE_TITLE, formatCount, rolesPhrase } from "@/lib/format";
import { useCluster, useSummary } from "@/components/data/queries";
import { RoleCard } from "@/components/overview/RoleCard";
import { TopProblems } from "@/components/overview/TopProblems";
import { EmptyState, Panel, Skeleton } from "@/components/ui/Panel";
import { SkeletonNote, ViewState } from "@/components/ui/ViewState";


function OverviewSkeleton({ note }: { note: string | null }) {
  return (
    <div aria-busy="true" aria-label="Loading the overview">
      <div className="page-head">
        <Skeleton height={24} width={220} />
        <SkeletonNote note={note} />
      </div>
      <div style={{ marginBottom: 16 }}>
        <Panel title="Top problems" aria-busy>
          <Skeleton height={96} />
        </Panel>
      </div>
      <div className="grid grid-2">
        {ROLES.map((r) => (
          <Panel key={r} title={ROLE_TITLE[r]} aria-busy>
            <Skeleton height={150} />
            <div style={{ height: 14 }} />
            <Skeleton height={12} />
          </Panel>
        ))}
      </div>
    </div>
  );
}

function MonitorCounts({ monitors }: { monitors: SummaryView["monitors"] }) {
  if (!monitors) return <EmptyState title="Monitors unavailable" hint="Neither the ServiceMonitor nor the PodMonitor CRD could be read." />;
  return (
    <div className="stats">
      {OWNERSHIPS.map((o) => (
        <div className="stat" key={o}>
          <span className="label">{OWNERSHIP_LABEL[o]}</span>
          <span className="value" data-testid={`monitors-${o}`} style={{ color: o !== "ok" && monitors[o] ? `var(--${OWNERSHIP_TONE[o]})` : undefined }}>
            {formatCount(monitors[o])}
          </span>
        </div>
      ))}
    </div>
  );
}

function NodeCounts({ nodes }: { nodes: SummaryView["nodes"] }) {
  const stats = [
    ["healthy", nodes.byState.healthy],
    ["degraded", nodes.byState.degraded],
    ["no collector", nodes.byState.no_collector],
    ["holding ghosts", nodes.byState.ghosts],
    ["two agent pods", nodes.multiplePods],
  ] as const;
  return (
    <div className="stats">
      {stats.map(([label, value]) => (
        <div className="stat" key={label}>
          <span className="label">{label}</span>
          <span className="value">{formatCount(value)}</span>
        </div>
      ))}
    </div>
  );
}

export function Overview() {
  const q = useSummary();
  const cluster = useCluster();
  const query = cluster ? `?cluster=${encodeURIComponent(cluster)}` : "";
  return (
    <ViewState query={q} api="GET /api/v1/summary" skeleton={(note) => <OverviewSkeleton note={note} />}>
      {(s, status) => {
        const roles = ROLES.filter((r) => s.roles[r]);
        return (
          <>
            <div className="page-head">
              <h1>{s.cluster}</h1>
              <p>
                {formatCount(s.nodes.total)} nodes, {rolesPhrase(roles)}
              </p>
              <span style={{ marginLeft: "auto" }}>{status.age}</span>
            </div>
            {status.banners}
            <div style={{ marginBottom: 16 }}>
              <TopProblems query={query} />
            </div>
            <div className="grid grid-2">
              {roles.map((r) => (
                <RoleCard key={r} summary={s.roles[r]!} details={s.roleDetails?.[r]} query={query} />
              ))}
            </div>
            <div className="grid grid-2" style={{ marginTop: 16 }}>
              <Panel title="Monitor ownership">
                <MonitorCounts monitors={s.monitors} />
              </Panel>
              <Panel title="Nodes">
                <NodeCounts nodes={s.nodes} />
              </Panel>
            </div>
          </>
        );
      }}
    </ViewState>
  );
}

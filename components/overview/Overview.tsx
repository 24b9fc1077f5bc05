"use client";
import type { Ownership } from "@/lib/model";
import { ROLES } from "@/lib/model";
import { useCluster, useSummary } from "@/components/data/queries";
import { RoleCard } from "@/components/overview/RoleCard";
import { TopProblems } from "@/components/overview/TopProblems";
import { DataAge } from "@/components/ui/DataAge";
import { StaleBanner } from "@/components/ui/StaleBanner";
import { EmptyState, ErrorState, Panel, Skeleton } from "@/components/ui/Panel";
import { formatCount, ROLE_TITLE, rolesPhrase } from "@/lib/format";

const OWNERSHIP: { key: Ownership; label: string; tone: string }[] = [
  { key: "ok", label: "owned once", tone: "ok" },
  { key: "double", label: "double-scraped", tone: "bad" },
  { key: "orphaned", label: "orphaned", tone: "bad" },
  { key: "misrouted", label: "misrouted", tone: "warn" },
];

export function Overview() {
  const q = useSummary();
  const cluster = useCluster();
  const query = cluster ? `?cluster=${encodeURIComponent(cluster)}` : "";
  if (q.isPending) {
    return (
      <div className="grid grid-2" aria-busy="true">
        {ROLES.map((r) => (
          <Panel key={r} title={ROLE_TITLE[r]} aria-busy>
            <Skeleton height={48} />
            <div style={{ height: 12 }} />
            <Skeleton height={12} />
          </Panel>
        ))}
      </div>
    );
  }
  if (q.isError && !q.data) return <ErrorState message={q.error.message} />;
  const s = q.data!;
  const roles = ROLES.filter((r) => s.roles[r]);
  return (
    <>
      <div className="page-head">
        <h1>{s.cluster}</h1>
        <p>
          {formatCount(s.nodes.total)} nodes, {rolesPhrase(roles)}
        </p>
        <span style={{ marginLeft: "auto" }}>
          <DataAge at={s.at} pollIntervalMs={s.pollIntervalMs} />
        </span>
      </div>
      <StaleBanner stale={s.stale} />
      <div style={{ marginBottom: 16 }}>
        <TopProblems query={query} />
      </div>
      <div className="grid grid-2">
        {roles.map((r) => (
          <RoleCard key={r} summary={s.roles[r]!} query={query} />
        ))}
      </div>
      <div className="grid grid-2" style={{ marginTop: 16 }}>
        <Panel title="Monitor ownership">
          {s.monitors ? (
            <div className="stats">
              {OWNERSHIP.map((o) => (
                <div className="stat" key={o.key}>
                  <span className="label">{o.label}</span>
                  <span className="value" data-testid={`monitors-${o.key}`} style={{ color: o.key !== "ok" && s.monitors![o.key] ? `var(--${o.tone === "bad" ? "bad" : "warn"})` : undefined }}>
                    {s.monitors![o.key]}
                  </span>
                </div>
              ))}
            </div>
          ) : (
            <EmptyState title="Monitors unavailable" hint="Neither the ServiceMonitor nor the PodMonitor CRD could be read." />
          )}
        </Panel>
        <Panel title="Nodes">
          <div className="stats">
            <div className="stat">
              <span className="label">healthy</span>
              <span className="value">{s.nodes.byState.healthy}</span>
            </div>
            <div className="stat">
              <span className="label">degraded</span>
              <span className="value">{s.nodes.byState.degraded}</span>
            </div>
            <div className="stat">
              <span className="label">no collector</span>
              <span className="value">{s.nodes.byState.no_collector}</span>
            </div>
            <div className="stat">
              <span className="label">holding ghosts</span>
              <span className="value">{s.nodes.byState.ghosts}</span>
            </div>
            <div className="stat">
              <span className="label">two agent pods</span>
              <span className="value">{s.nodes.multiplePods}</span>
            </div>
          </div>
        </Panel>
      </div>
    </>
  );
}

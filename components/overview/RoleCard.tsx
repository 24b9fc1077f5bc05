import Link from "next/link";
import type { RoleSummary } from "@/lib/analysis/types";
import { ClassBar } from "@/components/overview/ClassBar";
import { Gauge } from "@/components/ui/Gauge";
import { Panel } from "@/components/ui/Panel";
import { formatCount, ROLE_TITLE } from "@/lib/format";

function TaBadge({ ready }: { ready: boolean | null }) {
  if (ready === null) return <span className="badge bad">TA unreachable</span>;
  return ready ? <span className="badge ok">TA ready</span> : <span className="badge warn">TA not ready</span>;
}

export function RoleCard({ summary: s, query }: { summary: RoleSummary; query: string }) {
  const ghostTone = () => (s.classes.ghost ? { color: "var(--c-ghost)" } : undefined);
  // content as functions: a malformed summary fails this card's panel, not the page
  return (
    <Panel
      title={ROLE_TITLE[s.role]}
      right={() => (
        <span style={{ display: "flex", gap: 6, flexWrap: "wrap", justifyContent: "flex-end" }}>
          <span className="badge muted">{s.flavor}</span>
          {s.strategy ? <span className="badge muted">{s.strategy}</span> : null}
          <TaBadge ready={s.taReady} />
        </span>
      )}
    >
      {() => (
        <>
          <div style={{ display: "flex", gap: 16, alignItems: "center", marginBottom: 14, flexWrap: "wrap" }}>
            <Gauge value={s.localityRatio} label="locality" testId={`${s.role}-locality`} warn={s.role === "per-node" ? 0.95 : 0} bad={s.role === "per-node" ? 0.8 : 0} />
            <div className="stats" style={{ flex: 1, minWidth: 260 }}>
              <div className="stat">
                <span className="label">Collectors ready</span>
                <span className="value" data-testid={`${s.role}-collectors`}>
                  {s.collectorsEligible}/{s.collectorsTotal}
                </span>
                <Link className="sub" href={`/collectors${query}`} prefetch={false}>
                  collectors
                </Link>
              </div>
              <div className="stat">
                <span className="label">Assigned targets</span>
                <span className="value" data-testid={`${s.role}-targets`}>
                  {formatCount(s.targets)}
                </span>
                <span className="sub">{s.jobs} jobs</span>
              </div>
              <div className="stat">
                <span className="label">Unassigned</span>
                <span className="value" style={s.unassigned ? { color: "var(--warn)" } : undefined} data-testid={`${s.role}-unassigned`}>
                  {formatCount(s.unassigned)}
                </span>
                <span className="sub">TA gauge: {formatCount(s.unassignedReported)}</span>
              </div>
              <div className="stat">
                <span className="label">Ghosts</span>
                <span className="value" style={ghostTone()} data-testid={`${s.role}-ghosts`}>
                  {formatCount(s.classes.ghost)}
                </span>
                <Link className="sub" href={`/lost${query}`} prefetch={false}>
                  not counted by the TA
                </Link>
              </div>
            </div>
          </div>
          <ClassBar classes={s.classes} />
        </>
      )}
    </Panel>
  );
}

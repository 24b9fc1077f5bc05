import type { RoleSummary } from "@/lib/analysis/types";
import { ClassBar } from "@/components/overview/ClassBar";
import { Panel } from "@/components/ui/Panel";

const pct = (v: number | null) => (v === null ? "n/a" : `${(v * 100).toFixed(v === 1 ? 0 : 1)}%`);
const num = (v: number | null | undefined) => (v === null || v === undefined ? "n/a" : v.toLocaleString("en-US"));

export function RoleCard({ summary }: { summary: RoleSummary }) {
  const s = summary;
  const taBadge = s.taReady === null ? <span className="badge bad">TA unreachable</span> : s.taReady ? <span className="badge ok">TA ready</span> : <span className="badge warn">TA not ready</span>;
  return (
    <Panel
      title={s.role === "per-node" ? "Per-node agent" : "Cluster-scraper agent"}
      right={
        <span style={{ display: "flex", gap: 6 }}>
          <span className="badge muted">{s.flavor}</span>
          {s.strategy ? <span className="badge muted">{s.strategy}</span> : null}
          {taBadge}
        </span>
      }
    >
      <div className="stats" style={{ marginBottom: 14 }}>
        <div className="stat">
          <span className="label">Collectors ready</span>
          <span className="value" data-testid={`${s.role}-collectors`}>
            {s.collectorsEligible}/{s.collectorsTotal}
          </span>
        </div>
        <div className="stat">
          <span className="label">Assigned targets</span>
          <span className="value" data-testid={`${s.role}-targets`}>{num(s.targets)}</span>
          <span className="sub">{s.jobs} jobs</span>
        </div>
        <div className="stat">
          <span className="label">Unassigned</span>
          <span className="value" style={{ color: s.unassigned ? "var(--warn)" : undefined }}>{num(s.unassigned)}</span>
          <span className="sub">TA gauge: {num(s.unassignedReported)}</span>
        </div>
        <div className="stat">
          <span className="label">Ghosts</span>
          <span className="value" style={{ color: s.classes.ghost ? "var(--c-ghost)" : undefined }} data-testid={`${s.role}-ghosts`}>
            {num(s.classes.ghost)}
          </span>
          <span className="sub">not counted by the TA</span>
        </div>
        <div className="stat">
          <span className="label">Locality</span>
          <span className="value" data-testid={`${s.role}-locality`}>{pct(s.localityRatio)}</span>
          <span className="sub">local / node-bound</span>
        </div>
      </div>
      <ClassBar classes={s.classes} />
    </Panel>
  );
}

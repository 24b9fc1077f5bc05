import type { CSSProperties } from "react";
import type { LostRole } from "@/lib/views/lost";
import { Panel, PanelGuard } from "@/components/ui/Panel";
import styles from "./lost.module.css";
import { formatCount, ROLE_TITLE } from "@/lib/format";

const tone = (v: string, value?: string) => ({ "--tone": v, "--value": value ?? "var(--text)" }) as CSSProperties;

function UnassignedSub({ r }: { r: LostRole }) {
  if (r.unassigned === null) return <span className={styles.sub}>{r.taReady === null ? "TA unreachable" : "TA metrics unavailable"}</span>;
  if (r.unassignedReported === null) return <span className={styles.sub}>TA gauge: not exported</span>;
  return (
    <span className={styles.sub} title={r.reportedDiffers ? "The TA's own gauge is sticky upstream: it can keep an old value after the targets found a collector" : "The TA's own gauge"}>
      TA gauge: <span className={r.reportedDiffers ? styles.reported : undefined}>{formatCount(r.unassignedReported)}</span>
      {r.reportedDiffers ? " (stale)" : ""}
    </span>
  );
}

function GhostSub({ ghosts, collectors, assigned, embed }: { ghosts: number; collectors: number; assigned: number; embed: boolean }) {
  const on = `on ${collectors} collector${collectors === 1 ? "" : "s"}`;
  if (embed) return <>{ghosts ? on : "none"}</>;
  return <>{ghosts ? `${on}, of ${formatCount(assigned)} assigned` : `of ${formatCount(assigned)} assigned`}</>;
}

/** One role's two numbers: unassigned (the TA knows it lost them) and ghosts (it does not). */
function LostGaugesInner({ r, embed = false }: { r: LostRole; embed?: boolean }) {
  const unassignedTone = r.unassigned ? "var(--warn)" : r.unassigned === null ? "var(--border)" : "var(--ok)";
  const ghostTone = r.ghosts ? "var(--c-ghost)" : r.taReady === null ? "var(--border)" : "var(--ok)";
  const collectors = r.groups.length;
  // without any answer from the TA, its ghosts are unknown, not zero
  const known = r.taReady !== null;
  return (
    <Panel title={embed ? r.role : ROLE_TITLE[r.role]} right={embed ? undefined : <span className="badge muted">{r.flavor}</span>}>
      <div className={styles.gauges}>
        <div className={styles.gauge} style={tone(unassignedTone, r.unassigned ? "var(--warn)" : undefined)} data-testid={`${r.role}-unassigned`}>
          <span className={styles.label}>Unassigned</span>
          <span className={styles.value}>{r.unassigned === null ? "n/a" : formatCount(r.unassigned)}</span>
          <UnassignedSub r={r} />
        </div>
        <div className={styles.gauge} style={tone(ghostTone, r.ghosts ? "var(--c-ghost)" : undefined)} data-testid={`${r.role}-lost-ghosts`}>
          <span className={styles.label}>Ghosts</span>
          <span className={styles.value}>{known ? formatCount(r.ghosts) : "n/a"}</span>
          <span className={styles.sub}>
            {known ? <GhostSub ghosts={r.ghosts} collectors={collectors} assigned={r.assigned} embed={embed} /> : "TA unreachable"}
          </span>
        </div>
      </div>
    </Panel>
  );
}

/** LostGauges inside its own boundary: a failure while computing it fails this panel only. */
export function LostGauges(props: { r: LostRole; embed?: boolean }) {
  return (
    <PanelGuard title={props.embed ? props.r.role : ROLE_TITLE[props.r.role]}>
      <LostGaugesInner {...props} />
    </PanelGuard>
  );
}

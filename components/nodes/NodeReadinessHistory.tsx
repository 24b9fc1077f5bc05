import type { ReadinessEvent } from "@/lib/analysis/readiness";
import { readinessStrips } from "@/lib/views/node-readiness";
import styles from "./NodeDetail.module.css";
import { cssPercent, utcTime } from "@/lib/format";

interface Props {
  /** readiness transitions of this node's collector pods (from the churn API), any order */
  events: readonly ReadinessEvent[];
  /** the window shown, ms epoch; defaults to the first event .. `to` */
  from?: number;
  to: number;
}

/**
 * Collector readiness over time, one strip per agent pod: green while eligible, red while not, blank before its first
 * known state. Renders only its props; the node detail feeds it from the churn API.
 */
export function NodeReadinessHistory({ events, from, to }: Props) {
  if (events.length === 0) {
    return <p className={styles.none}>No readiness changes recorded for this node&apos;s collectors.</p>;
  }
  const start = from ?? Math.min(...events.map((e) => e.at));
  const strips = readinessStrips(events, start, to);
  return (
    <div className={styles.history}>
      {strips.map((s) => (
        <div key={s.key} className={styles.historyRow}>
          <span className={`mono ${styles.historyPod}`} title={`${s.pod} (${s.role})`}>
            {s.pod}
          </span>
          <div
            className={styles.strip}
            role="img"
            aria-label={`${s.pod}: ${s.transitions} readiness changes; ${s.segments.map((g) => `${g.ready ? "eligible" : `not eligible (${g.reason ?? "unknown"})`} from ${utcTime(g.at)}`).join(", ")}`}
          >
            {s.segments.map((g) => (
              <span
                key={`${g.at}-${g.ready ? 1 : 0}`}
                className={styles.seg}
                data-ready={g.ready ? "" : undefined}
                style={{ left: cssPercent(g.x0), width: cssPercent(Math.max(0.005, g.x1 - g.x0)) }}
                title={`${g.ready ? "eligible" : (g.reason ?? "not eligible")} from ${utcTime(g.at)}`}
              />
            ))}
          </div>
        </div>
      ))}
      <div className={styles.historyAxis} aria-hidden="true">
        <span>{utcTime(start)}</span>
        <span>{utcTime(to)}</span>
      </div>
    </div>
  );
}

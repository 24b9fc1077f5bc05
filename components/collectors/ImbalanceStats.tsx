import type { CollectorsView } from "@/lib/views/collectors";
import { eligibleStats, imbalanceVerdict } from "@/lib/views/collectors-view";
import s from "./collectors.module.css";
import { formatDecimal } from "@/lib/format";

type RoleView = CollectorsView["roles"][number];
const fixed = (v: number | null, d = 2) => formatDecimal(v, d);

/** max/mean and CV of targets over eligible collectors, with what good looks like for the strategy. */
export function ImbalanceStats({ role, compact }: { role: RoleView; compact?: boolean }) {
  const stats = eligibleStats(role.collectors);
  const verdict = imbalanceVerdict(role.strategy, role.imbalance, stats);
  return (
    <div className={s.imbalance}>
      <div className={s.statsRow}>
        <div className="stat">
          <span className="label" title="targets of the busiest eligible collector / mean over eligible collectors">
            max / mean
          </span>
          <span className="value">{fixed(role.imbalance.maxOverMean)}</span>
        </div>
        <div className="stat">
          <span className="label" title="coefficient of variation: standard deviation / mean of targets per eligible collector">
            CV
          </span>
          <span className="value">{fixed(role.imbalance.cv)}</span>
        </div>
        <div className="stat">
          <span className="label" title="mean targets per eligible collector">mean targets</span>
          <span className="value">{fixed(stats.mean, 1)}</span>
          <span className="sub">{stats.min === null ? "no eligible collector" : `min ${stats.min}, max ${stats.max}`}</span>
        </div>
      </div>
      <p className={s.verdict}>
        <span className={`badge ${verdict.tone}`}>{verdict.label}</span>
        <span>{compact ? verdict.short : verdict.explanation}</span>
      </p>
    </div>
  );
}

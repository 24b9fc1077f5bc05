import { ELIGIBILITIES, ELIGIBILITY_LABEL, type Eligibility } from "@/lib/views/collectors-view";
import { ELIGIBILITY_FILL } from "./palette";
import s from "./collectors.module.css";
import { formatCount } from "@/lib/format";

/** The chart legend, with counts so it reads without colour. */
export function EligibilityLegend({ counts }: { counts: Record<Eligibility, number> }) {
  return (
    <div className="legend">
      {ELIGIBILITIES.map((e) => (
        <span key={e} className={counts[e] ? undefined : s.legendZero}>
          <i style={{ background: ELIGIBILITY_FILL[e] }} />
          {ELIGIBILITY_LABEL[e]} <strong style={{ color: "var(--text)" }}>{formatCount(counts[e])}</strong>
        </span>
      ))}
    </div>
  );
}

import type { CollectorRow } from "@/lib/analysis/types";
import { EXTREMES, extremes, histogram } from "@/lib/views/collectors-view";
import { Histogram } from "./Histogram";
import { TargetsBarChart } from "./TargetsBarChart";
import s from "./collectors.module.css";

/** For many collectors: the distribution, then the busiest and idlest EXTREMES instead of thousands of bars. */
export function Distribution({ rows, mean, compact }: { rows: CollectorRow[]; mean: number | null; compact?: boolean }) {
  const { top, bottom } = extremes(rows, EXTREMES);
  const rowsHeight = (n: number) => 28 + n * 15;
  return (
    <div>
      <Histogram bins={histogram(rows)} height={compact ? 150 : 200} />
      {compact ? null : (
        <div className={s.extremes}>
          <figure className={s.figure}>
            <figcaption>Most targets ({top.length})</figcaption>
            <TargetsBarChart rows={top} mean={mean} horizontal height={rowsHeight(top.length)} label={`The ${top.length} collectors with most targets`} />
          </figure>
          <figure className={s.figure}>
            <figcaption>Fewest targets ({bottom.length})</figcaption>
            <TargetsBarChart rows={bottom} mean={mean} horizontal height={rowsHeight(bottom.length)} label={`The ${bottom.length} collectors with fewest targets`} />
          </figure>
        </div>
      )}
    </div>
  );
}

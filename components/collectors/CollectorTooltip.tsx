import type { CollectorRow } from "@/lib/analysis/types";
import { ELIGIBILITY_LABEL, eligibilityOf } from "@/lib/views/collectors-view";
import s from "./collectors.module.css";
import { formatCount, formatPercent } from "@/lib/format";

interface TooltipProps {
  active?: boolean;
  payload?: readonly { payload?: { row?: CollectorRow } }[];
}

/** Tooltip of one collector bar: every string rendered as text. */
export function CollectorTooltip({ active, payload }: TooltipProps) {
  const row = payload?.[0]?.payload?.row;
  if (!active || !row) return null;
  const e = eligibilityOf(row);
  return (
    <div className={s.tooltip}>
      <strong>{row.id}</strong>
      <span>{row.node ?? "no node"}</span>
      <span>
        {formatCount(row.targets)} targets · {formatPercent(row.share)}
      </span>
      <span>
        {ELIGIBILITY_LABEL[e]}
        {e !== "eligible" && row.reason ? `: ${row.reason}` : ""}
      </span>
    </div>
  );
}

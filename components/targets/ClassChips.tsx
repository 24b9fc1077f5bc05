import type { CSSProperties } from "react";
import type { TargetClass } from "@/lib/model";
import { CLASS_LABEL } from "@/components/overview/ClassBar";
import styles from "./targets.module.css";
import { formatCount } from "@/lib/format";

const ORDER: TargetClass[] = ["local", "cross_node", "cross_zone", "nodeless", "ghost"];

/** One toggle per class with its count under the other filters; pressed chips form the class filter. */
export function ClassChips({ counts, selected, onToggle }: { counts: Record<string, number> | undefined; selected: readonly TargetClass[] | null; onToggle: (c: TargetClass) => void }) {
  return (
    <div className={styles.chips} role="group" aria-label="Filter by class">
      {ORDER.map((c) => {
        const n = counts?.[c] ?? 0;
        const on = selected?.includes(c) ?? false;
        return (
          <button
            key={c}
            type="button"
            className={styles.chip}
            style={{ "--cls": `var(--c-${c})` } as CSSProperties}
            aria-pressed={on}
            disabled={!on && n === 0}
            onClick={() => onToggle(c)}
            title={on ? `Stop filtering on ${CLASS_LABEL[c]}` : `Show only ${CLASS_LABEL[c]} targets`}
          >
            <span className={styles.dot} aria-hidden="true" />
            {CLASS_LABEL[c]}
            <span className={styles.count}>{counts ? formatCount(n) : "–"}</span>
          </button>
        );
      })}
    </div>
  );
}

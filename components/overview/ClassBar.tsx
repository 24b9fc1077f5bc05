import type { TargetClass } from "@/lib/model";
import { TARGET_CLASSES } from "@/lib/model";
import { cssPercent, formatCount } from "@/lib/format";

export const CLASS_LABEL: Record<TargetClass, string> = {
  local: "local",
  cross_node: "cross-node",
  cross_zone: "cross-zone",
  nodeless: "no node",
  ghost: "ghost",
};

/** One stacked bar of targets by class, with a legend that carries the numbers (readable without colour). */
export function ClassBar({ classes }: { classes: Record<TargetClass, number> }) {
  const total = TARGET_CLASSES.reduce((s, c) => s + classes[c], 0);
  const order: TargetClass[] = ["local", "cross_node", "cross_zone", "nodeless", "ghost"];
  return (
    <div>
      <div className="classbar" role="img" aria-label={order.map((c) => `${CLASS_LABEL[c]} ${classes[c]}`).join(", ")}>
        {total > 0
          ? order.map((c) => (classes[c] ? <span key={c} style={{ width: cssPercent(classes[c], total), background: `var(--c-${c})` }} /> : null))
          : null}
      </div>
      <div className="legend">
        {order.map((c) => (
          <span key={c}>
            <i style={{ background: `var(--c-${c})` }} />
            {CLASS_LABEL[c]} <strong style={{ color: "var(--text)" }}>{formatCount(classes[c])}</strong>
          </span>
        ))}
      </div>
    </div>
  );
}

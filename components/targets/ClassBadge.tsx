import type { CSSProperties } from "react";
import type { TargetClass } from "@/lib/model";
import { CLASS_LABEL } from "@/components/overview/ClassBar";
import styles from "./targets.module.css";

/** A target class as colour and text (readable without colour). */
export function ClassBadge({ cls }: { cls: TargetClass }) {
  return (
    <span className={styles.badge} style={{ "--cls": `var(--c-${cls})` } as CSSProperties}>
      <span className={styles.dot} aria-hidden="true" />
      {CLASS_LABEL[cls]}
    </span>
  );
}

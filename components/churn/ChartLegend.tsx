import styles from "./churn.module.css";

export interface LegendItem {
  key: string;
  label: string;
  color: string;
  /** a line swatch (line charts) rather than a square */
  line?: boolean;
}

/** The legend as text: charts stay readable without colour. */
export function ChartLegend({ items }: { items: readonly LegendItem[] }) {
  return (
    <span className={styles.legend}>
      {items.map((i) => (
        <span key={i.key}>
          <i className={i.line ? styles.line : undefined} style={{ background: i.color }} />
          {i.label}
        </span>
      ))}
    </span>
  );
}

"use client";
import { useState } from "react";
import type { TargetRow } from "@/lib/analysis/types";
import type { TargetClass } from "@/lib/model";
import { CLASS_LABEL } from "@/components/overview/ClassBar";
import styles from "./NodeDetail.module.css";
import { formatCount } from "@/lib/format";

interface Props {
  rows: readonly TargetRow[];
  /** the node of the detail */
  node: string;
  /** which other end to show: who scrapes a target of this node, or the node of a target scraped here */
  side: "collector" | "target";
  onNode: (name: string) => void;
  empty: string;
  capped: boolean;
}

const ORDER: Record<TargetClass, number> = { ghost: 0, cross_zone: 1, cross_node: 2, nodeless: 3, local: 4 };
const FIRST = 40;

function OtherEnd({ t, node, side, onNode }: { t: TargetRow; node: string; side: Props["side"]; onNode: (n: string) => void }) {
  const other = side === "collector" ? t.collectorNode : t.node;
  const jump = other && other !== node ? (
    <button type="button" className={styles.linkBtn} onClick={() => onNode(other)} title={other}>
      {side === "collector" ? `on ${other}` : other}
    </button>
  ) : null;
  return (
    <span className={styles.targetBy}>
      <span className={`mono ${styles.sub}`} title={`${t.collector} (${t.role})`}>
        {t.collector}
      </span>
      {jump}
      {side === "target" && !t.node ? <span className={styles.sub}>target has no node</span> : null}
      {t.class === "ghost" && t.reason ? <span className={styles.bad}>{t.reason}</span> : null}
    </span>
  );
}

/** Problem targets first, a first page shown, the rest on demand (the API caps each list at 500). */
export function TargetList({ rows, node, side, onNode, empty, capped }: Props) {
  const [all, setAll] = useState(false);
  if (rows.length === 0) return <p className={styles.none}>{empty}</p>;
  const sorted = [...rows].sort((a, b) => ORDER[a.class] - ORDER[b.class] || a.role.localeCompare(b.role) || a.job.localeCompare(b.job) || a.address.localeCompare(b.address));
  const shown = all ? sorted : sorted.slice(0, FIRST);
  return (
    <>
      <ul className={styles.targets}>
        {shown.map((t) => (
          <li key={`${t.role}\u0000${t.job}\u0000${t.address}\u0000${t.collector}`} className={styles.target}>
            <span className={styles.cls} data-cls={t.class}>
              {CLASS_LABEL[t.class]}
            </span>
            <span className={styles.targetMain}>
              <span className={`mono ${styles.job}`} title={t.job}>
                {t.job}
              </span>
              <span className={`mono ${styles.sub}`}>
                {t.address}
                {t.role === "cluster-scraper" ? " · cluster-scraper" : ""}
              </span>
            </span>
            <OtherEnd t={t} node={node} side={side} onNode={onNode} />
          </li>
        ))}
      </ul>
      {rows.length > FIRST ? (
        <button type="button" className={`btn btn-ghost ${styles.showAll}`} onClick={() => setAll((v) => !v)} aria-expanded={all}>
          {all ? "Show fewer" : `Show all ${formatCount(rows.length)}${capped ? " (first 500)" : ""}`}
        </button>
      ) : null}
    </>
  );
}

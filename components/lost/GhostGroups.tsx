"use client";
import { Fragment, useState } from "react";
import type { GhostGroup } from "@/lib/views/lost";
import { GhostTargets } from "@/components/lost/GhostTargets";
import styles from "./lost.module.css";
import { formatCount } from "@/lib/format";

const groupKey = (g: GhostGroup) => `${g.role}\u0000${g.collector}`;

function where(g: GhostGroup): string {
  if (g.node) return g.zone ? `${g.node} (${g.zone})` : g.node;
  return g.inKubernetes ? "not scheduled" : "pod gone";
}

/** Ghost targets grouped by the not-eligible collector that holds them; a row expands to its targets. */
export function GhostGroups({ groups, showRole, targetsHref }: { groups: GhostGroup[]; showRole: boolean; targetsHref: (g: GhostGroup) => string }) {
  const [open, setOpen] = useState<ReadonlySet<string>>(new Set());
  const toggle = (k: string) =>
    setOpen((cur) => {
      const next = new Set(cur);
      if (next.has(k)) next.delete(k);
      else next.add(k);
      return next;
    });
  const cols = showRole ? 5 : 4;
  return (
    <table className={styles.groups}>
      <colgroup>
        <col style={{ width: showRole ? "30%" : "36%" }} />
        {showRole ? <col className={styles.hideNarrow} style={{ width: "14%" }} /> : null}
        <col style={{ width: showRole ? "26%" : "30%" }} />
        <col style={{ width: "20%" }} />
        <col style={{ width: "10%" }} />
      </colgroup>
      <thead>
        <tr>
          <th scope="col">Collector</th>
          {showRole ? (
            <th scope="col" className={styles.hideNarrow}>
              Role
            </th>
          ) : null}
          <th scope="col">Its node</th>
          <th scope="col">Why not eligible</th>
          <th scope="col" className={styles.num}>
            Targets
          </th>
        </tr>
      </thead>
      <tbody>
        {groups.map((g) => {
          const k = groupKey(g);
          const isOpen = open.has(k);
          const detailId = `ghost-detail-${k.replace(/[^a-zA-Z0-9_-]/g, "_")}`;
          return (
            <Fragment key={k}>
              <tr className={isOpen ? styles.open : undefined}>
                <td>
                  <button type="button" className={styles.toggle} aria-expanded={isOpen} aria-controls={isOpen ? detailId : undefined} onClick={() => toggle(k)} title={g.collector}>
                    <span className={styles.chev} aria-hidden="true">
                      ▸
                    </span>
                    <span>{g.collector}</span>
                  </button>
                </td>
                {showRole ? <td className={`${styles.muted} ${styles.hideNarrow}`}>{g.role}</td> : null}
                <td title={where(g)}>{where(g)}</td>
                <td className={styles.reason} title={g.restarts ? `${g.reason}, ${g.restarts} restarts` : g.reason}>
                  {g.reason}
                  {g.restarts ? <span className={styles.muted}> · {g.restarts} restart{g.restarts === 1 ? "" : "s"}</span> : null}
                </td>
                <td className={`${styles.num} ${styles.count}`}>{formatCount(g.targets)}</td>
              </tr>
              {isOpen ? (
                <tr className={styles.detail} id={detailId}>
                  <td colSpan={cols}>
                    <GhostTargets group={g} targetsHref={targetsHref(g)} />
                  </td>
                </tr>
              ) : null}
            </Fragment>
          );
        })}
      </tbody>
    </table>
  );
}

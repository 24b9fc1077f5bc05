"use client";
import { useVirtualizer } from "@tanstack/react-virtual";
import { useRef } from "react";
import type { CollectorRow } from "@/lib/analysis/types";
import { ELIGIBILITY_LABEL, eligibilityOf, type CollectorSortKey, type SortDir } from "@/lib/views/collectors-view";
import { ELIGIBILITY_FILL } from "./palette";
import s from "./collectors.module.css";
import { formatCount, formatPercent } from "@/lib/format";

const ROW_HEIGHT = 33;
const SORT_MARK = { ascending: "▲", descending: "▼", none: "" } as const;
const yes = (b: boolean) => (b ? "yes" : "no");
/** 12.3% above 1%, two significant digits below (0.02% for one collector in 5,000) */

interface Column {
  key: string;
  label: string;
  sort?: CollectorSortKey;
  num?: boolean;
}

const COLUMNS: Column[] = [
  { key: "id", label: "Collector", sort: "id" },
  { key: "role", label: "Role", sort: "role" },
  { key: "node", label: "Node", sort: "node" },
  { key: "zone", label: "Zone", sort: "zone" },
  { key: "phase", label: "Phase", sort: "phase" },
  { key: "ready", label: "Ready" },
  { key: "restarts", label: "Restarts", sort: "restarts", num: true },
  { key: "targets", label: "Targets", sort: "targets", num: true },
  { key: "share", label: "Share", num: true },
  { key: "inTa", label: "In TA" },
  { key: "inKube", label: "In Kubernetes" },
];

function ariaSort(c: Column, sort: CollectorSortKey, dir: SortDir): "ascending" | "descending" | undefined {
  if (c.sort !== sort) return undefined;
  return dir === "asc" ? "ascending" : "descending";
}

interface Props {
  rows: CollectorRow[];
  sort: CollectorSortKey;
  dir: SortDir;
  onSort: (key: CollectorSortKey) => void;
}

function Row({ r }: { r: CollectorRow }) {
  const e = eligibilityOf(r);
  return (
    <tr className={e === "eligible" ? undefined : s.rowProblem}>
      <td className={s.idCell} title={e === "eligible" ? r.id : `${r.id}: ${ELIGIBILITY_LABEL[e]}${r.reason ? ` (${r.reason})` : ""}`}>
        <i className={s.dot} style={{ background: ELIGIBILITY_FILL[e] }} aria-hidden="true" />
        <span className="sr-only">{ELIGIBILITY_LABEL[e]}: </span>
        {r.id}
      </td>
      <td>{r.role}</td>
      <td className={s.ellipsis}>{r.node ?? "—"}</td>
      <td>{r.zone ?? "—"}</td>
      <td>{r.phase ?? "—"}</td>
      <td className={r.ready ? undefined : s.bad}>{yes(r.ready)}</td>
      <td className={`num ${r.restarts >= 3 ? s.bad : ""}`}>{r.restarts}</td>
      <td className="num">{formatCount(r.targets)}</td>
      <td className="num">{formatPercent(r.share)}</td>
      <td className={r.inTa ? undefined : s.warn}>{yes(r.inTa)}</td>
      <td className={r.inKubernetes ? undefined : s.bad}>{yes(r.inKubernetes)}</td>
    </tr>
  );
}

/** Every collector, virtualised (5,000 rows stay smooth), with sortable headers. */
export function CollectorTable({ rows, sort, dir, onSort }: Props) {
  const scroller = useRef<HTMLDivElement>(null);
  // eslint-disable-next-line react-hooks/incompatible-library -- the virtualizer is read during render by design (no compiler memoisation here)
  const v = useVirtualizer({ count: rows.length, getScrollElement: () => scroller.current, estimateSize: () => ROW_HEIGHT, overscan: 12 });
  const items = v.getVirtualItems();
  const top = items.length ? items[0].start : 0;
  const bottom = items.length ? v.getTotalSize() - items[items.length - 1].end : 0;
  return (
    <div ref={scroller} className={s.tableWrap} tabIndex={0} role="region" aria-label={`Collectors table, ${rows.length} rows`}>
      <table className={`data ${s.table}`} aria-rowcount={rows.length + 1}>
        <thead>
          <tr>
            {COLUMNS.map((c) => (
              <th key={c.key} scope="col" className={c.num ? "num" : undefined} aria-sort={ariaSort(c, sort, dir)}>
                {c.sort ? (
                  <button type="button" className={s.sortBtn} onClick={() => onSort(c.sort!)}>
                    {c.label}
                    <span aria-hidden="true" className={s.sortMark}>
                      {SORT_MARK[ariaSort(c, sort, dir) ?? "none"]}
                    </span>
                  </button>
                ) : (
                  c.label
                )}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {top > 0 ? <tr aria-hidden="true" style={{ height: top }} /> : null}
          {items.map((it) => (
            <Row key={`${rows[it.index].role}/${rows[it.index].id}`} r={rows[it.index]} />
          ))}
          {bottom > 0 ? <tr aria-hidden="true" style={{ height: bottom }} /> : null}
        </tbody>
      </table>
    </div>
  );
}

"use client";
/**
 * The virtualized target list: fixed row height, sticky header, scrollbar sized by the whole match; only the pages the
 * window shows are fetched (and polled), other rows render as loading rows until their page arrives.
 */
import { useVirtualizer } from "@tanstack/react-virtual";
import { useRef, useState, type ReactNode } from "react";
import type { TargetRow } from "@/lib/analysis/types";
import { pagesFor, pagesToFetch, rowAt, samePages, TARGET_PAGE_SIZE, targetKey, type TargetParams, type TargetSort } from "@/lib/views/target-window";
import { useTargetPages } from "@/components/data/target-queries";
import { PlaceholderRow, TargetRowView, type RowLinks } from "@/components/targets/TargetRowView";
import styles from "./targets.module.css";

export const PAGE_SIZE = TARGET_PAGE_SIZE;
const ROW_H = 46;
const HEAD_H = 34;

const SORTS: { key: TargetSort; label: string }[][] = [
  [
    { key: "address", label: "Target" },
    { key: "job", label: "Job" },
  ],
  [{ key: "node", label: "Target node" }],
  [{ key: "collector", label: "Collector" }],
  [{ key: "class", label: "Class" }],
];

function Header({ sort, onSort }: { sort: TargetSort; onSort: (s: TargetSort) => void }) {
  return (
    <div role="rowgroup" className={styles.header}>
      <div role="row" aria-rowindex={1} className={styles.cols} style={{ height: HEAD_H, alignItems: "center" }}>
        {SORTS.map((group) => (
          <div role="columnheader" key={group[0].key} aria-sort={group.some((s) => s.key === sort) ? "ascending" : "none"}>
            {group.map((s, i) => (
              <span key={s.key}>
                {i ? <span className={styles.sep}> / </span> : null}
                <button type="button" className={styles.sortBtn} aria-pressed={s.key === sort} onClick={() => onSort(s.key)} title={`Sort by ${s.label.toLowerCase()}`}>
                  {s.label}
                  {s.key === sort ? <span aria-hidden="true"> ↑</span> : null}
                </button>
              </span>
            ))}
          </div>
        ))}
      </div>
    </div>
  );
}

interface TableProps {
  params: TargetParams;
  /** rows of page 0, from the view's head query */
  firstPage: readonly TargetRow[] | undefined;
  /** the whole match (sizes the scrollbar) */
  count: number;
  /** the head query still shows the previous filters' answer */
  stale: boolean;
  sort: TargetSort;
  onSort: (s: TargetSort) => void;
  links: RowLinks;
  /** shown instead of rows when nothing matches */
  empty: ReactNode;
}

export function TargetTable({ params, firstPage, count, stale, sort, onSort, links, empty }: TableProps) {
  const scrollRef = useRef<HTMLDivElement>(null);
  // eslint-disable-next-line react-hooks/incompatible-library -- the virtualizer is read during render by design
  const v = useVirtualizer({ count, getScrollElement: () => scrollRef.current, estimateSize: () => ROW_H, overscan: 10, scrollMargin: HEAD_H });
  const items = v.getVirtualItems();
  const first = items[0]?.index ?? 0;
  const last = items.at(-1)?.index ?? 0;
  const current = pagesFor(first, last, count, PAGE_SIZE);
  const [settled, setSettled] = useState(current);
  if (!v.isScrolling && !samePages(settled, current)) setSettled(current);
  const fetched = useTargetPages(params, pagesToFetch(settled, current), current, PAGE_SIZE);
  const pages = new Map<number, readonly TargetRow[]>(fetched.pages);
  if (firstPage) pages.set(0, firstPage);
  const error = fetched.error;
  const seen = new Set<string>();
  const keyOf = (t: TargetRow, index: number) => {
    const k = targetKey(t);
    // the same target can sit at the edge of two pages fetched a poll apart: keep keys unique
    const unique = seen.has(k) ? `${k}#${index}` : k;
    seen.add(unique);
    return unique;
  };

  return (
    <div className={styles.table}>
      {error ? (
        <p className={styles.pageError} role="status">
          Some rows could not be loaded (GET /api/v1/targets): {error.message}
        </p>
      ) : null}
      <div ref={scrollRef} className={styles.scroller} tabIndex={0} role="region" aria-label="Target list, scrollable">
        <div role="table" aria-label="Targets" aria-rowcount={count + 1} aria-busy={stale}>
          <Header sort={sort} onSort={onSort} />
          <div role="rowgroup" className={`${styles.body} ${stale ? styles.dim : ""}`} style={{ height: v.getTotalSize() }}>
            {items.map((it) => {
              const pos = { index: it.index, top: it.start - HEAD_H, height: ROW_H };
              const t = rowAt(pages, it.index, PAGE_SIZE);
              return t ? <TargetRowView key={keyOf(t, it.index)} t={t} links={links} pos={pos} /> : <PlaceholderRow key={`loading-${it.index}`} pos={pos} />;
            })}
          </div>
        </div>
      </div>
      {count === 0 && !stale ? <div className={styles.overlay}>{empty}</div> : null}
    </div>
  );
}

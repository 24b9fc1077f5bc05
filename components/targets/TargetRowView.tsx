import type { CSSProperties } from "react";
import type { TargetRow } from "@/lib/analysis/types";
import type { TargetFilters } from "@/lib/views/target-window";
import { ClassBadge } from "@/components/targets/ClassBadge";
import { FilterLink } from "@/components/targets/FilterLink";
import { Skeleton } from "@/components/ui/Panel";
import styles from "./targets.module.css";

export type FilterPatch = Partial<Pick<TargetFilters, "node" | "collector" | "job">>;

export interface RowLinks {
  href: (patch: FilterPatch) => string;
  apply: (patch: FilterPatch) => void;
}

interface Positioned {
  /** 0-based index in the whole match */
  index: number;
  top: number;
  height: number;
}

const place = ({ top, height }: Positioned): CSSProperties => ({ transform: `translateY(${top}px)`, height });
const rowClass = `${styles.row} ${styles.cols}`;

function NodeCell({ t, links }: { t: TargetRow; links: RowLinks }) {
  if (!t.node) {
    return (
      <div role="cell" className={styles.cell}>
        <span className={styles.sub}>no node</span>
      </div>
    );
  }
  const node = t.node;
  return (
    <div role="cell" className={styles.cell}>
      <span className={styles.line}>
        <FilterLink href={links.href({ node })} onSelect={() => links.apply({ node })} className={styles.link} title={`${node}: show targets on or scraped from this node`}>
          {node}
        </FilterLink>
      </span>
      <span className={styles.sub}>{t.zone ?? "zone unknown"}</span>
    </div>
  );
}

function CollectorCell({ t, links }: { t: TargetRow; links: RowLinks }) {
  const collector = t.collector;
  const cnode = t.collectorNode;
  const expectedNote = t.expected ? `The per-node strategy would pick ${t.expected} from the Kubernetes view` : undefined;
  return (
    <div role="cell" className={styles.cell}>
      <span className={styles.line}>
        <FilterLink href={links.href({ collector })} onSelect={() => links.apply({ collector })} className={`${styles.link} ${styles.mono}`} title={`${collector}: show its targets`}>
          {collector}
        </FilterLink>
        {t.expected ? (
          <span className={styles.marker} title={expectedNote}>
            <span aria-hidden="true">≠</span>
            <span className="sr-only">{expectedNote}</span>
          </span>
        ) : null}
      </span>
      {t.expected ? (
        <span className={`${styles.sub} ${styles.expected}`} title={expectedNote}>
          expected {t.expected}
        </span>
      ) : (
        <span className={styles.sub}>
          {cnode ? (
            <>
              on{" "}
              <FilterLink href={links.href({ node: cnode })} onSelect={() => links.apply({ node: cnode })} className={`${styles.link} ${styles.subLink}`}>
                {cnode}
              </FilterLink>
            </>
          ) : (
            "no node (pod unknown)"
          )}
        </span>
      )}
    </div>
  );
}

export function TargetRowView({ t, links, pos }: { t: TargetRow; links: RowLinks; pos: Positioned }) {
  const job = t.job;
  return (
    <div role="row" aria-rowindex={pos.index + 2} className={rowClass} style={place(pos)}>
      <div role="cell" className={styles.cell}>
        <span className={`${styles.line} ${styles.mono}`} title={t.address}>
          {t.address}
        </span>
        <span className={styles.sub}>
          <FilterLink href={links.href({ job })} onSelect={() => links.apply({ job })} className={`${styles.link} ${styles.subLink}`} title={job}>
            {job}
          </FilterLink>
        </span>
      </div>
      <NodeCell t={t} links={links} />
      <CollectorCell t={t} links={links} />
      <div role="cell" className={styles.cell}>
        <ClassBadge cls={t.class} />
        {t.reason ? (
          <span className={styles.reason} title={t.reason}>
            {t.reason}
          </span>
        ) : null}
      </div>
    </div>
  );
}

/** A row whose page is still loading: same height and columns, so nothing moves when it arrives. */
export function PlaceholderRow({ pos }: { pos: Positioned }) {
  return (
    <div role="row" aria-rowindex={pos.index + 2} aria-busy="true" className={rowClass} style={place(pos)}>
      {["58%", "44%", "50%", "30%"].map((w) => (
        <div role="cell" className={styles.cell} key={w}>
          <Skeleton height={10} width={w} />
        </div>
      ))}
    </div>
  );
}

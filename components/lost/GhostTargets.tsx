"use client";
import Link from "next/link";
import type { GhostGroup } from "@/lib/views/lost";
import { keyedRows } from "@/lib/views/target-window";
import { useTargets, type TargetsView } from "@/components/data/queries";
import { ViewState } from "@/components/ui/ViewState";
import { Skeleton } from "@/components/ui/Panel";
import styles from "./lost.module.css";
import { formatCount } from "@/lib/format";

export const DETAIL_LIMIT = 50;

/** The targets one not-eligible collector still holds (first DETAIL_LIMIT), with a link to all of them in Targets. */
export function GhostTargets({ group, targetsHref }: { group: GhostGroup; targetsHref: string }) {
  const q = useTargets({ role: group.role, class: "ghost", collector: group.collector, limit: DETAIL_LIMIT });
  return (
    <ViewState
      query={q}
      api="GET /api/v1/targets"
      skeleton={<GhostTargetList group={group} targetsHref={targetsHref} data={undefined} />}
      failed={(e) => <p className={styles.muted}>Could not load the targets (GET /api/v1/targets): {e.message}</p>}
    >
      {(d) => <GhostTargetList group={group} targetsHref={targetsHref} data={d} />}
    </ViewState>
  );
}

/** The list, with loading rows until `data` arrives (same size, so the expanded row does not jump). */
function GhostTargetList({ group, targetsHref, data }: { group: GhostGroup; targetsHref: string; data: TargetsView | undefined }) {
  const rows = data?.rows;
  return (
    <>
      <div className={styles.detailList}>
        <table aria-label={`Ghost targets of ${group.collector}`}>
          <colgroup>
            <col style={{ width: "32%" }} />
            <col style={{ width: "38%" }} />
            <col style={{ width: "30%" }} />
          </colgroup>
          <thead>
            <tr>
              <th scope="col">Address</th>
              <th scope="col">Job</th>
              <th scope="col">Target node</th>
            </tr>
          </thead>
          <tbody aria-busy={!rows}>
            {rows
              ? keyedRows(rows).map(({ key, row: t }) => (
                  <tr key={key}>
                    <td className="mono" title={t.address}>
                      {t.address}
                    </td>
                    <td title={t.job}>{t.job}</td>
                    <td title={t.node ?? undefined}>{t.node ?? <span className={styles.muted}>no node</span>}</td>
                  </tr>
                ))
              : [0, 1, 2].map((i) => (
                  <tr key={`loading-${i}`}>
                    <td colSpan={3}>
                      <Skeleton height={10} />
                    </td>
                  </tr>
                ))}
          </tbody>
        </table>
      </div>
      <div className={styles.detailFoot}>
        <span>
          {rows && data!.matched > rows.length ? `First ${rows.length} of ${formatCount(data!.matched)}` : `${formatCount(group.targets)} targets`} in{" "}
          {group.jobs} job{group.jobs === 1 ? "" : "s"}
          {group.targetNodes ? `, on ${group.targetNodes} node${group.targetNodes === 1 ? "" : "s"}` : ""}
        </span>
        <Link href={targetsHref} prefetch={false}>
          Open in Targets →
        </Link>
      </div>
    </>
  );
}

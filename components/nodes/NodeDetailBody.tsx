"use client";
import Link from "next/link";
import type { NodeDetailView } from "@/lib/views/nodes";
import { STATE_META } from "@/lib/views/node-map";
import { EmptyState, Skeleton } from "@/components/ui/Panel";
import { ViewState } from "@/components/ui/ViewState";
import { useNodeReadiness } from "@/components/data/churn-queries";
import { NodeReadinessHistory } from "./NodeReadinessHistory";
import { TargetList } from "./TargetList";
import mapStyles from "./NodeMap.module.css";
import styles from "./NodeDetail.module.css";
import { formatCount } from "@/lib/format";

/** This node's collector readiness over the last hour, from the churn history. */
function Readiness({ node, at }: { node: string; at: number }) {
  const q = useNodeReadiness(node);
  const data = q.data?.node === node ? q.data : undefined;
  return (
    <ViewState
      query={{ data, error: q.error }}
      api="GET /api/v1/churn"
      skeleton={<Skeleton height={28} />}
      failed={(e) => <p className={styles.count}>Readiness history unavailable: {e.message}</p>}
    >
      {(d) => <NodeReadinessHistory events={d.events} from={d.from} to={d.to ?? at} />}
    </ViewState>
  );
}

interface Props {
  d: NodeDetailView;
  cluster: string | null;
  onNode: (name: string) => void;
}

function Collectors({ d }: { d: NodeDetailView }) {
  if (d.collectors.length === 0) {
    return <EmptyState title="No agent pod on this node" hint="Neither agent runs a pod here: targets on this node are scraped elsewhere or not at all." />;
  }
  return (
    <table className="data">
      <thead>
        <tr>
          <th scope="col">Pod</th>
          <th scope="col">Eligibility</th>
          <th scope="col" className="num">
            Targets
          </th>
        </tr>
      </thead>
      <tbody>
        {d.collectors.map((c) => (
          <tr key={`${c.role}/${c.id}`}>
            <td>
              <div className="mono">{c.id}</div>
              <div className={styles.sub}>
                {c.role} · {c.phase ?? "no phase"} · {c.restarts} restarts{c.inTa ? "" : " · not listed by the TA"}
              </div>
            </td>
            <td>{c.eligible ? <span className="badge ok">eligible</span> : <span className="badge bad">{c.reason ?? "not eligible"}</span>}</td>
            <td className="num">{formatCount(c.targets)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** What one node holds: its collectors, their readiness history, its targets and who scrapes them, what it scrapes for others. */
export function NodeDetailBody({ d, cluster, onNode }: Props) {
  const n = d.node;
  const targetsHref = `/targets?${new URLSearchParams({ ...(cluster ? { cluster } : {}), node: n.name })}`;
  return (
    <div className={styles.body}>
      <div className={styles.meta}>
        <span className={mapStyles.stateBadge} data-state={n.state}>
          <i className={mapStyles.swatch} data-state={n.state} aria-hidden="true" />
          {STATE_META[n.state].label}
        </span>
        {n.ready ? null : <span className="badge bad">node not Ready</span>}
        <span className={styles.sub}>
          {n.zone ?? "no zone"} · {n.instanceType ?? "unknown instance type"}
        </span>
      </div>
      <p className={styles.hint}>{STATE_META[n.state].hint}.</p>
      {n.multiplePods ? (
        <div className={styles.note} role="note">
          Two agent pods of one role run on this node: a rollout is replacing the old pod.
        </div>
      ) : null}

      <section className={styles.section} aria-labelledby="nd-collectors">
        <h3 id="nd-collectors">Collectors on this node</h3>
        <Collectors d={d} />
      </section>

      <section className={styles.section} aria-labelledby="nd-history">
        <h3 id="nd-history">Collector readiness</h3>
        <Readiness node={d.node.name} at={d.at} />
      </section>

      <section className={styles.section} aria-labelledby="nd-targets">
        <h3 id="nd-targets">
          Targets on this node <span className={styles.count}>{formatCount(d.targets.length)}</span>
        </h3>
        <TargetList rows={d.targets} node={n.name} side="collector" onNode={onNode} empty="No target runs on this node." capped={d.targets.length >= 500} />
        <Link className={styles.more} href={targetsHref} prefetch={false}>
          Open these targets in the Targets view →
        </Link>
      </section>

      <section className={styles.section} aria-labelledby="nd-others">
        <h3 id="nd-others">
          Scraped here for other nodes <span className={styles.count}>{formatCount(d.scrapedForOthers.length)}</span>
        </h3>
        <TargetList rows={d.scrapedForOthers} node={n.name} side="target" onNode={onNode} empty="This node's collectors scrape only their own node's targets." capped={d.scrapedForOthers.length >= 500} />
      </section>
    </div>
  );
}

"use client";
/**
 * The fleet: one row per cluster the fleet's metrics backend holds (GET /api/v1/fleet), worst first: status and what makes
 * it, locality per role, ghosts, unassigned, monitors scraped twice / by nobody / by the wrong TA, nodes without a
 * collector, source health, the age of the last poll, a 24-hour trend, and a link to the cluster's own dashboard. Reads
 * the backend only (never this dashboard's pollers); when the backend fails, the last answer stays, marked.
 */
import { memo, useSyncExternalStore, type ReactNode } from "react";
import { ROLES, type Role } from "@/lib/model";
import type { FleetRow, FleetView as FleetData } from "@/lib/api/schemas";
import { isHttpLink } from "@/lib/fleet/link";
import { STATUS_BADGE, fleetHeadline, rowGhosts, rowUnassigned } from "@/lib/views/fleet-view";
import { formatAgo, formatCount, formatPercent, ROLE_SHORT } from "@/lib/format";
import { ApiFetchError } from "@/components/data/queries";
import { useFleet } from "@/components/data/fleet-queries";
import { EmptyState, Panel, Skeleton } from "@/components/ui/Panel";
import { ListState, SkeletonNote, ViewState, type ViewStatus } from "@/components/ui/ViewState";
import { Sparkline } from "@/components/fleet/Sparkline";
import styles from "./fleet.module.css";

const TITLE = "Fleet";
const PROBLEMS_SHOWN = 3;

export function FleetView({ embed = false }: { embed?: boolean }) {
  const q = useFleet();
  return (
    <ViewState
      query={q}
      api="GET /api/v1/fleet"
      skeleton={(note) => <FleetSkeleton embed={embed} note={note} />}
      failed={(e) => (e instanceof ApiFetchError && e.status === 404 ? <FleetNotConfigured embed={embed} /> : undefined)}
      errorTitle="Could not load the fleet"
    >
      {(v, status) => <FleetBody v={v} status={status} embed={embed} />}
    </ViewState>
  );
}

/** What the fleet pages show without a fleet in the configuration (the server knows it, or the API answered 404). */
export function FleetNotConfigured({ embed }: { embed: boolean }) {
  return (
    <>
      <Head embed={embed} right={null} />
      <EmptyState title="No fleet is configured" hint="Add a fleet section to the configuration: the metrics backend that scrapes every cluster's dashboard." />
    </>
  );
}

function Head({ embed, right }: { embed: boolean; right: ReactNode }) {
  return (
    <div className="page-head" style={embed ? { marginBottom: 8 } : undefined}>
      {embed ? <strong>{TITLE}</strong> : <h1>{TITLE}</h1>}
      {embed ? null : <p>every cluster&apos;s dashboard, from the metrics backend, worst first</p>}
      <span style={{ marginLeft: "auto" }}>{right}</span>
    </div>
  );
}

export function FleetSkeleton({ embed, note }: { embed: boolean; note?: string | null }) {
  return (
    <div aria-busy="true">
      <Head embed={embed} right={note ? <SkeletonNote note={note} /> : <span className="age">loading…</span>} />
      <Panel title="Clusters">
        {[0, 1, 2].map((i) => (
          <div key={i} style={{ padding: "8px 0" }}>
            <Skeleton height={embed ? 28 : 36} />
          </div>
        ))}
      </Panel>
    </div>
  );
}

/**
 * The time, to the second, from one clock every "ago" cell shares: a tick re-renders those cells only, not the table
 * (a hundred rows of charts would otherwise be drawn again every second).
 */
const secondClock = (() => {
  const listeners = new Set<() => void>();
  let timer: ReturnType<typeof setInterval> | undefined;
  return {
    subscribe(l: () => void) {
      listeners.add(l);
      timer ??= setInterval(() => {
        for (const x of listeners) x();
      }, 1000);
      return () => {
        listeners.delete(l);
        if (!listeners.size && timer !== undefined) {
          clearInterval(timer);
          timer = undefined;
        }
      };
    },
    // the current second: the same value for every call within it
    now: () => Math.floor(Date.now() / 1000) * 1000,
  };
})();

function Ago({ at }: { at: number | null }) {
  const now = useSyncExternalStore(secondClock.subscribe, secondClock.now, secondClock.now);
  // the server renders it a moment before the browser hydrates it: the seconds may differ, and the next tick sets them
  return <span suppressHydrationWarning>{at === null ? "n/a" : formatAgo(at, now)}</span>;
}

function FleetBody({ v, status, embed }: { v: FleetData; status: ViewStatus; embed: boolean }) {
  return (
    <div>
      <Head embed={embed} right={status.age} />
      {status.banners}
      <Panel
        title="Clusters"
        right={
          <span className="age">
            {fleetHeadline(v)}
            {embed ? null : (
              <>
                {" · from "}
                <span className={styles.backend}>{v.backend}</span>
              </>
            )}
          </span>
        }
      >
        <ListState empty={v.clusters.length === 0} emptyState={<EmptyState title="No cluster in the backend" hint="No allocation_lens_ series match fleet.prometheus.matchers in the last 24 hours." />}>
          {() => <FleetTable rows={v.clusters} embed={embed} at={v.at} truncated={v.truncated} />}
        </ListState>
      </Panel>
    </div>
  );
}

const rowClass = (r: FleetRow) => (r.status === "stopped" ? styles.stoppedRow : r.status === "bad" ? styles.badRow : r.status === "warn" ? styles.warnRow : undefined);

function Count({ n, tone = "bad" }: { n: number | null; tone?: "bad" | "warn" }) {
  if (n === null) return <span className={styles.zero}>n/a</span>;
  return <span className={n ? (tone === "bad" ? styles.nonzero : styles.warnText) : styles.zero}>{formatCount(n)}</span>;
}

function ClusterCell({ r, embed }: { r: FleetRow; embed: boolean }) {
  // the server builds the link from the configured template; the browser renders http(s) links only
  const href = isHttpLink(r.dashboardUrl) ? r.dashboardUrl : null;
  return (
    <th scope="row" className={styles.cluster}>
      {href ? (
        <a href={href} rel="noopener noreferrer" target={embed ? "_blank" : undefined} title={`Open the dashboard of ${r.cluster}`}>
          {r.cluster}
        </a>
      ) : (
        r.cluster
      )}
    </th>
  );
}

function StatusCell({ r, embed }: { r: FleetRow; embed: boolean }) {
  const badge = STATUS_BADGE[r.status];
  const shown = r.problems.slice(0, embed ? 1 : PROBLEMS_SHOWN);
  return (
    <td>
      <span className={`badge ${badge.tone}`}>{badge.label}</span>
      {shown.length ? (
        <ul className={styles.problems} title={r.problems.join("; ")}>
          {shown.map((p) => (
            <li key={p}>{p}</li>
          ))}
          {r.problems.length > shown.length ? <li>and {r.problems.length - shown.length} more</li> : null}
        </ul>
      ) : null}
    </td>
  );
}

function PerRole({ r, value }: { r: FleetRow; value: (x: NonNullable<FleetRow["roles"][Role]>) => ReactNode }) {
  const roles = ROLES.filter((role) => r.roles[role]);
  if (!roles.length) return <span className={styles.zero}>n/a</span>;
  return (
    <span className={styles.roles}>
      {roles.map((role) => (
        <span key={role}>
          <span className={styles.roleName}>{ROLE_SHORT[role]}</span>
          {value(r.roles[role]!)}
        </span>
      ))}
    </span>
  );
}

function Sources({ r }: { r: FleetRow }) {
  if (!r.sources.length) return <span className={styles.zero}>n/a</span>;
  const down = r.sources.filter((s) => !s.up);
  return (
    <span title={r.sources.map((s) => `${s.source}: ${s.up ? "up" : "failing"}`).join("\n")}>
      {r.sources.length - down.length}/{r.sources.length} up
      {down.length ? <span className={styles.down}> ({down.map((s) => s.source).join(", ")})</span> : null}
    </span>
  );
}

/** The count columns of the full table (the embed shows ghosts only). */
const COUNT_COLUMNS: { label: string; title: string; tone: "bad" | "warn"; value: (r: FleetRow) => number | null }[] = [
  { label: "Unassigned", title: "targets the TA knows but assigned to no collector (live count)", tone: "warn", value: rowUnassigned },
  { label: "Double", title: "monitors scraped by both TAs", tone: "warn", value: (r) => r.monitors?.double ?? null },
  { label: "Orphaned", title: "monitors scraped by nobody", tone: "bad", value: (r) => r.monitors?.orphaned ?? null },
  { label: "Misrouted", title: "monitors held only by the other TA", tone: "warn", value: (r) => r.monitors?.misrouted ?? null },
  { label: "No collector", title: "nodes with targets but no per-node agent pod", tone: "warn", value: (r) => r.nodesWithoutCollector },
];

const FleetTableRow = memo(function FleetTableRow({ r, embed, at }: { r: FleetRow; embed: boolean; at: number }) {
  return (
    <tr className={rowClass(r)}>
      <ClusterCell r={r} embed={embed} />
      <StatusCell r={r} embed={embed} />
      <td>
        <PerRole r={r} value={(x) => formatPercent(x.localityRatio)} />
      </td>
      <td className="num">
        <Count n={rowGhosts(r)} />
      </td>
      {embed ? null : (
        <>
          {COUNT_COLUMNS.map((c) => (
            <td key={c.label} className="num">
              <Count n={c.value(r)} tone={c.tone} />
            </td>
          ))}
          <td>
            <Sources r={r} />
          </td>
        </>
      )}
      <td className="age">
        <Ago at={r.lastPollAt} />
      </td>
      <td>
        <Sparkline trend={r.trend} to={at} compact={embed} />
      </td>
    </tr>
  );
});

function FleetTable({ rows, embed, at, truncated }: { rows: FleetRow[]; embed: boolean; at: number; truncated: number }) {
  return (
    <div className={styles.tableWrap} tabIndex={0} role="region" aria-label="Clusters of the fleet">
      <table className={`data ${styles.table}`}>
        <thead>
          <tr>
            <th scope="col">Cluster</th>
            <th scope="col">Status</th>
            <th scope="col">Locality</th>
            <th scope="col" className="num">
              Ghosts
            </th>
            {embed ? null : (
              <>
                {COUNT_COLUMNS.map((c) => (
                  <th key={c.label} scope="col" className="num" title={c.title}>
                    {c.label}
                  </th>
                ))}
                <th scope="col">Sources</th>
              </>
            )}
            <th scope="col">Last poll</th>
            <th scope="col">24 h</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <FleetTableRow key={r.cluster} r={r} embed={embed} at={at} />
          ))}
        </tbody>
      </table>
      {truncated ? <p className="age">{formatCount(truncated)} more clusters not shown (row limit)</p> : null}
    </div>
  );
}

"use client";
/**
 * Alerts: which of the alerting rules (deploy/alerts, generated from lib/alerts/rules.ts) would fire now on this cluster
 * and since when, judged by the dashboard on its own current values with the thresholds of its configuration; each
 * with its runbook and the view that shows the problem, filtered to it.
 */
import Link from "next/link";
import { useSearchParams } from "next/navigation";
import { useAlerts } from "@/components/data/queries";
import type { AlertInstance, AlertRow, AlertsView as AlertsData } from "@/lib/api/schemas";
import { alertCounts, countsSentence, SEVERITY_WORD, splitAlerts, STATE_WORD, viewName, withTheme } from "@/lib/views/alerts-view";
import { clockTime, formatAgo, formatDuration, plural } from "@/lib/format";
import { EmptyState, Skeleton } from "@/components/ui/Panel";
import { ListState, SkeletonNote, ViewState, type ViewStatus } from "@/components/ui/ViewState";
import styles from "./alerts.module.css";

export function AlertsView({ embed = false }: { embed?: boolean }) {
  const q = useAlerts();
  return (
    <ViewState query={q} api="GET /api/v1/alerts" skeleton={(note) => <AlertsSkeleton embed={embed} note={note} />}>
      {(v, status) => <AlertsBody v={v} status={status} embed={embed} />}
    </ViewState>
  );
}

function AlertsSkeleton({ embed, note }: { embed: boolean; note?: string | null }) {
  return (
    <div className={embed ? styles.embed : undefined} aria-busy="true">
      <div className="page-head">
        {embed ? <strong className={styles.embedTitle}>Alerts</strong> : <h1>Alerts</h1>}
        <SkeletonNote note={note} />
      </div>
      <div className={styles.counts}>
        {["firing", "pending", "quiet"].map((k) => (
          <Skeleton key={k} height={embed ? 24 : 34} width={embed ? 90 : 120} />
        ))}
      </div>
      <ul className={styles.list}>
        {Array.from({ length: embed ? 6 : 8 }, (_, i) => `sk-${i}`).map((k) => (
          <li key={k} className={styles.rule}>
            <Skeleton height={16} width="40%" />
          </li>
        ))}
      </ul>
    </div>
  );
}

function AlertsBody({ v, status, embed }: { v: AlertsData; status: ViewStatus; embed: boolean }) {
  const theme = useSearchParams().get("theme");
  const counts = alertCounts(v);
  const { active, quiet } = splitAlerts(v);
  return (
    <div className={embed ? styles.embed : undefined}>
      <div className="page-head">
        {embed ? <strong className={styles.embedTitle}>Alerts</strong> : <h1>Alerts</h1>}
        {embed ? null : <p>The alerting rules judged on the current values of {v.cluster}</p>}
        <span style={{ marginLeft: "auto" }}>{status.age}</span>
      </div>
      {status.banners}
      <div className={styles.counts} role="status" aria-label={countsSentence(counts)}>
        <span className={`${styles.count} ${counts.firing ? styles.count_firing : ""}`}>
          <span className={styles.countNum}>{counts.firing}</span> firing
        </span>
        <span className={`${styles.count} ${counts.pending ? styles.count_pending : ""}`}>
          <span className={styles.countNum}>{counts.pending}</span> pending
        </span>
        <span className={styles.count}>
          <span className={styles.countNum}>{counts.inactive}</span> quiet
        </span>
      </div>
      <section aria-labelledby="alerts-active" className={styles.section}>
        <h2 id="alerts-active" className={styles.sectionTitle}>
          Would fire now
        </h2>
        <ListState
          empty={!active.length}
          emptyState={<EmptyState title="No alert would fire now" hint={`All ${plural(v.alerts.length, "rule")} are quiet on ${v.cluster}.`} />}
        >
          <ul className={styles.list} aria-label="Alerts that hold">
            {active.map((a) => (
              <ActiveRule key={a.alert} a={a} theme={theme} embed={embed} now={v.at} />
            ))}
          </ul>
        </ListState>
      </section>
      {embed ? null : (
        <section aria-labelledby="alerts-quiet" className={styles.section}>
          <h2 id="alerts-quiet" className={styles.sectionTitle}>
            Quiet
          </h2>
          <ul className={`${styles.list} ${styles.quietList}`} aria-label="Quiet rules">
            {quiet.map((a) => (
              <li key={a.alert} className={styles.quiet}>
                <span className={styles.ruleName}>{a.alert}</span>
                <span className={`${styles.severity} ${styles[`sev_${a.severity}`]}`}>{SEVERITY_WORD[a.severity]}</span>
                <code className={styles.expr} title={a.expr}>
                  {a.expr}
                </code>
                {a.unknown ? <span className={styles.unknown}>cannot judge: {a.unknown}</span> : null}
                <a href={a.runbookUrl} target="_blank" rel="noopener noreferrer" className={styles.runbook}>
                  Runbook
                </a>
              </li>
            ))}
          </ul>
        </section>
      )}
    </div>
  );
}

function ActiveRule({ a, theme, embed, now }: { a: AlertRow; theme: string | null; embed: boolean; now: number }) {
  return (
    <li className={`${styles.rule} ${styles[`rule_${a.state}`]}`}>
      <div className={styles.ruleHead}>
        <span className={`${styles.state} ${styles[`state_${a.state}`]}`}>{STATE_WORD[a.state]}</span>
        <h3 className={styles.ruleName}>{a.alert}</h3>
        <span className={`${styles.severity} ${styles[`sev_${a.severity}`]}`}>{SEVERITY_WORD[a.severity]}</span>
        <a href={a.runbookUrl} target="_blank" rel="noopener noreferrer" className={styles.runbook}>
          Runbook
        </a>
      </div>
      <ul className={styles.instances} aria-label={`${a.alert} instances`}>
        {a.instances.map((n) => (
          <Instance key={JSON.stringify(n.labels)} n={n} forMs={a.forMs} theme={theme} embed={embed} now={now} />
        ))}
      </ul>
      {embed ? null : (
        <div className={styles.exprLine}>
          <code className={styles.expr}>{a.expr}</code>
          {a.forMs ? <span> for {formatDuration(a.forMs)}</span> : null}
        </div>
      )}
    </li>
  );
}

function Instance({ n, forMs, theme, embed, now }: { n: AlertInstance; forMs: number; theme: string | null; embed: boolean; now: number }) {
  const href = withTheme(n.dashboardPath, theme);
  const pendingFor = n.state === "pending" ? ` (fires after ${formatDuration(forMs)})` : "";
  return (
    <li className={styles.instance}>
      <div className={styles.summary}>{n.summary}</div>
      {embed ? null : <div className={styles.description}>{n.description}</div>}
      <div className={styles.meta}>
        <span title={clockTime(n.since)}>
          since {clockTime(n.since)}, {formatAgo(n.since, Math.max(now, n.since))}
          {pendingFor}
        </span>
        {embed ? (
          <a href={href} target="_blank" rel="noopener noreferrer">
            Open in {viewName(n.dashboardPath)}
          </a>
        ) : (
          <Link href={href} prefetch={false}>
            Open in {viewName(n.dashboardPath)}
          </Link>
        )}
      </div>
    </li>
  );
}

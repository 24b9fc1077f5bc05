import Link from "next/link";
import type { RoleSummary } from "@/lib/analysis/types";
import type { RoleDetails } from "@/lib/api/schemas";
import { LOCALITY_EXPECTED, LOCALITY_NOT_EXPECTED_WHY, scraperCard, type ScraperCardModel, type ZoneSlice } from "@/lib/views/role-card";
import { OWNERSHIP_HELP } from "@/lib/views/ownership-view";
import { ClassBar } from "@/components/overview/ClassBar";
import { Gauge } from "@/components/ui/Gauge";
import { Panel } from "@/components/ui/Panel";
import { cssPercent, formatCount, ROLE_TITLE } from "@/lib/format";
import styles from "./overview.module.css";

function TaBadge({ ready }: { ready: boolean | null }) {
  if (ready === null) return <span className="badge bad">TA unreachable</span>;
  return ready ? <span className="badge ok">TA ready</span> : <span className="badge warn">TA not ready</span>;
}

const toneColor = (tone: string) => (tone === "muted" ? undefined : `var(--${tone})`);

/** Collectors, assigned targets, unassigned and ghosts: every role's card starts its figures with these. */
function CoreStats({ s, query }: { s: RoleSummary; query: string }) {
  return (
    <>
      <div className="stat">
        <span className="label">Collectors ready</span>
        <span className="value" data-testid={`${s.role}-collectors`}>
          {s.collectorsEligible}/{s.collectorsTotal}
        </span>
        <Link className="sub" href={`/collectors${query}`} prefetch={false}>
          collectors
        </Link>
      </div>
      <div className="stat">
        <span className="label">Assigned targets</span>
        <span className="value" data-testid={`${s.role}-targets`}>
          {formatCount(s.targets)}
        </span>
        <span className="sub">{s.jobs} jobs</span>
      </div>
      <div className="stat">
        <span className="label">Unassigned</span>
        <span className="value" style={s.unassigned ? { color: "var(--warn)" } : undefined} data-testid={`${s.role}-unassigned`}>
          {formatCount(s.unassigned)}
        </span>
        <span className="sub">TA gauge: {formatCount(s.unassignedReported)}</span>
      </div>
      <div className="stat">
        <span className="label">Ghosts</span>
        <span className="value" style={s.classes.ghost ? { color: "var(--c-ghost)" } : undefined} data-testid={`${s.role}-ghosts`}>
          {formatCount(s.classes.ghost)}
        </span>
        <Link className="sub" href={`/lost${query}`} prefetch={false}>
          not counted by the TA
        </Link>
      </div>
    </>
  );
}

/** The per-node agent: scraping stays on the target's node, so its locality is the headline. */
function LocalityBody({ s, query }: { s: RoleSummary; query: string }) {
  return (
    <>
      <div className={styles.top}>
        <Gauge value={s.localityRatio} label="locality" testId={`${s.role}-locality`} warn={0.95} bad={0.8} />
        <div className={`stats ${styles.figures}`}>
          <CoreStats s={s} query={query} />
        </div>
      </div>
      <ClassBar classes={s.classes} />
    </>
  );
}

/** The role's monitors by ownership state, each problem linking to the Ownership view filtered to the role and state. */
function MonitorOwnership({ role, monitors: m }: { role: string; monitors: ScraperCardModel["monitors"] }) {
  if (!m) {
    return (
      <div className={`stat ${styles.hero}`}>
        <span className="label">Monitors</span>
        <span className="value" data-testid={`${role}-monitors`}>
          n/a
        </span>
        <span className="sub">no monitor CRD could be read</span>
      </div>
    );
  }
  return (
    <div className={`stat ${styles.hero}`}>
      <Link className={styles.heroLink} href={m.href} prefetch={false} title="the Ownership view, filtered to this agent">
        Monitors
      </Link>
      <span className="value" data-testid={`${role}-monitors`} aria-label={`${m.total} monitors, ${m.problems ? `${m.problems} with a problem` : "all owned once"}`}>
        {formatCount(m.total)}
      </span>
      <ul className={styles.states} aria-label="Monitors by ownership state">
        {m.lines.map((l) => (
          <li key={l.state} title={`${l.label}: ${OWNERSHIP_HELP[l.state]}`}>
            <span>{l.label}</span>
            {l.href ? (
              <Link href={l.href} prefetch={false} style={{ color: toneColor(l.tone) }} data-testid={`${role}-monitors-${l.state}`}>
                {formatCount(l.count)}
              </Link>
            ) : (
              <strong data-testid={`${role}-monitors-${l.state}`}>{formatCount(l.count)}</strong>
            )}
          </li>
        ))}
      </ul>
    </div>
  );
}

/** Real zones in shades of the accent (a zone is not good or bad); no zone and no node in the neutral nodeless colour. */
const SHADES = [85, 60, 40, 25];
const zoneFill = (z: ZoneSlice) => (z.shade < 0 ? "var(--c-nodeless)" : `color-mix(in srgb, var(--accent) ${SHADES[z.shade % SHADES.length]}%, var(--panel))`);

function ZoneBar({ role, c }: { role: string; c: ScraperCardModel }) {
  return (
    <div>
      <div className={`classbar ${styles.zonebar}`} role="img" aria-label={c.zonesLabel}>
        {c.zones.map((z) => (
          <span key={z.zone} style={{ width: cssPercent(z.count, c.zonesTotal), background: zoneFill(z) }} />
        ))}
      </div>
      <div className="legend">
        <span>targets by zone</span>
        {c.zones.map((z) => (
          <span key={z.zone} data-testid={`${role}-zone`}>
            <i style={{ background: zoneFill(z) }} />
            {z.label} <strong style={{ color: "var(--text)" }}>{formatCount(z.count)}</strong>
          </span>
        ))}
        {c.zones.length ? null : <span>none assigned</span>}
      </div>
      <p className={styles.note} title={`Locality is not a goal for this agent: ${LOCALITY_NOT_EXPECTED_WHY}.`} data-testid={`${role}-locality-note`}>
        {c.locality}
      </p>
    </div>
  );
}

/**
 * The cluster-scraper: its targets are cluster-level endpoints, not meant to be on its node, so its locality says nothing.
 * What matters is that its monitors reach it once, that its replicas share the load, and where its targets are.
 */
function ScraperBody({ s, details, query }: { s: RoleSummary; details: RoleDetails | undefined; query: string }) {
  const c = scraperCard(s, details, query);
  const b = c.balance;
  return (
    <>
      <div className={styles.top}>
        <MonitorOwnership role={s.role} monitors={c.monitors} />
        <div className={`stats ${styles.figures}`}>
          <CoreStats s={s} query={query} />
          <div className={`stat ${styles.wide}`}>
            <span className="label" title="assigned targets of the eligible collectors: fewest–most">
              Targets per collector
            </span>
            <span className="value" data-testid={`${s.role}-per-collector`}>
              {b.range}
            </span>
            <span className="sub" title={`mean ${b.mean} over ${b.collectors} eligible collectors`}>
              max/mean {b.maxOverMean} ·{" "}
              <span style={{ color: toneColor(b.verdict.tone), fontWeight: 600 }} title={b.verdict.explanation} data-testid={`${s.role}-balance`}>
                {b.verdict.label}
              </span>
            </span>
          </div>
        </div>
      </div>
      <ZoneBar role={s.role} c={c} />
    </>
  );
}

export function RoleCard({ summary: s, details, query }: { summary: RoleSummary; details?: RoleDetails; query: string }) {
  // content as functions: a malformed summary fails this card's panel, not the page
  return (
    <Panel
      title={ROLE_TITLE[s.role]}
      right={() => (
        <span style={{ display: "flex", gap: 6, flexWrap: "wrap", justifyContent: "flex-end" }}>
          <span className="badge muted">{s.flavor}</span>
          {s.strategy ? <span className="badge muted">{s.strategy}</span> : null}
          <TaBadge ready={s.taReady} />
        </span>
      )}
    >
      {() => (LOCALITY_EXPECTED[s.role] ? <LocalityBody s={s} query={query} /> : <ScraperBody s={s} details={details} query={query} />)}
    </Panel>
  );
}

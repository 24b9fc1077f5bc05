import type { Role } from "@/lib/model";
import type { SplitPart } from "@/lib/views/ownership-view";
import s from "./ownership.module.css";
import { formatCount, formatPercent } from "@/lib/format";

/** whole percents, but never "0%" or "100%" for a part that is neither */
const pct = (x: number) => formatPercent(x, 0);
export const ROLE_CLASS: Record<Role, string> = { "per-node": s.rolePerNode, "cluster-scraper": s.roleClusterScraper };

interface Segment {
  role: Role;
  value: number;
  share: number;
}

/** A two-part (or one-part) bar whose segments carry their own numbers; the aria-label repeats them. */
function SplitBar({ label, unit, segments, unknown }: { label: string; unit: string; segments: Segment[]; unknown?: boolean }) {
  const total = segments.reduce((t, x) => t + x.value, 0);
  const summary = unknown ? `${label}: unknown` : `${label}: ${segments.map((x) => `${x.role} ${formatCount(x.value)} ${unit} (${pct(x.share)})`).join(", ")}`;
  return (
    <div className={s.splitRow}>
      <span className={s.splitLabel}>{label}</span>
      <div className={s.splitBar} role="img" aria-label={summary}>
        {total === 0 || unknown ? <span className={s.splitNone}>{unknown ? "unknown" : "none"}</span> : null}
        {segments
          .filter((x) => x.value > 0 && !unknown)
          .map((x) => (
            <span key={x.role} className={`${s.segment} ${ROLE_CLASS[x.role]}`} style={{ flexGrow: x.value }}>
              {x.share >= 0.12 ? `${formatCount(x.value)} · ${pct(x.share)}` : ""}
            </span>
          ))}
      </div>
    </div>
  );
}

interface Props {
  parts: SplitPart[];
  doubles: number;
  /** false when the monitor CRDs could not be read */
  monitorsKnown: boolean;
  compact?: boolean;
}

export function RoleSplit({ parts, doubles, monitorsKnown, compact }: Props) {
  return (
    <div className={s.split}>
      <div>
      <SplitBar label="Monitors" unit="monitors" unknown={!monitorsKnown} segments={parts.map((p) => ({ role: p.role, value: p.monitors, share: p.monitorShare }))} />
      <SplitBar label="Targets" unit="targets" segments={parts.map((p) => ({ role: p.role, value: p.targets, share: p.targetShare }))} />
      {doubles > 0 && !compact ? (
        <p className={s.note}>
          {doubles} double-scraped monitor{doubles === 1 ? " counts" : "s count"} for both agents.
        </p>
      ) : null}
      </div>
      <ul className={compact ? s.roleListCompact : s.roleList}>
        {parts.map((p) => (
          <li key={p.role}>
            <span className={s.roleName}>
              <i className={`${s.swatch} ${ROLE_CLASS[p.role]}`} aria-hidden="true" />
              {p.role}
            </span>
            <span className={s.roleNums}>
              {monitorsKnown ? (
                <>
                  <strong>{formatCount(p.monitors)}</strong> monitors ({pct(p.monitorShare)})
                </>
              ) : (
                "monitors unknown"
              )}{" "}
              · <strong>{formatCount(p.targets)}</strong> targets ({pct(p.targetShare)})
            </span>
            {compact ? null : (
              <span className={s.staticJobs}>
                {p.staticJobs.length ? (
                  <>
                    Static jobs, not routed:{" "}
                    {p.staticJobs.map((j) => (
                      <code key={j}>{j}</code>
                    ))}
                  </>
                ) : (
                  "No static jobs."
                )}
              </span>
            )}
          </li>
        ))}
      </ul>
    </div>
  );
}

import type { Role } from "@/lib/model";
import type { MonitorRow } from "@/lib/analysis/types";
import { OwnershipBadge } from "./OwnershipBadge";
import { ROLE_CLASS } from "./RoleSplit";
import s from "./ownership.module.css";
import { formatCount } from "@/lib/format";

const fmt = (n: number | undefined) => formatCount(n ?? 0);

function Holders({ m }: { m: MonitorRow }) {
  if (!m.holders.length) return <span className={s.nobody}>nobody</span>;
  return (
    <span className={s.holders}>
      {m.holders.map((r) => (
        <span key={r} className={s.roleTag}>
          <i className={`${s.swatch} ${ROLE_CLASS[r]}`} aria-hidden="true" />
          {r}
        </span>
      ))}
    </span>
  );
}

/** The recognised scraper-annotation keys a monitor carries: the value, and the key when more than one is recognised. */
function Annotations({ m, showKey }: { m: MonitorRow; showKey: boolean }) {
  if (!m.scraperAnnotations.length) return <span className={s.absent} aria-label="no annotation">—</span>;
  return (
    <span className={s.annotations}>
      {m.scraperAnnotations.map((a) => (
        <span key={a.key}>
          <code className={s.annotation}>{a.value}</code>
          {showKey ? <span className={s.annotationKey}>{a.key}</span> : null}
        </span>
      ))}
    </span>
  );
}

/** Every monitor with its annotation, expected and actual owners and targets per role. Strings render as text. */
export function MonitorTable({ rows, roles, annotationKeys, compact }: { rows: MonitorRow[]; roles: Role[]; annotationKeys: readonly string[]; compact?: boolean }) {
  return (
    <div className={s.tableWrap} tabIndex={0} role="region" aria-label="Monitors table">
      <table className={`data ${s.table}`}>
        <thead>
          <tr>
            <th scope="col">State</th>
            {compact ? null : <th scope="col">Kind</th>}
            <th scope="col">Monitor</th>
            {compact ? null : (
              <th scope="col" title={annotationKeys.join(" or ")}>
                Annotation
              </th>
            )}
            <th scope="col">Expected</th>
            <th scope="col">Held by</th>
            {compact ? (
              <th scope="col" className="num" title="targets of this monitor in every TA">
                Targets
              </th>
            ) : (
              roles.map((r) => (
                <th key={r} scope="col" className="num" title={`targets of this monitor in the ${r} TA`}>
                  {roles.length > 1 ? `${r} targets` : "Targets"}
                </th>
              ))
            )}
          </tr>
        </thead>
        <tbody>
          {rows.map((m) => (
            <tr key={`${m.kind}/${m.namespace}/${m.name}`} className={m.ownership === "ok" ? undefined : s.problemRow}>
              <td>
                <OwnershipBadge state={m.ownership} />
              </td>
              {compact ? null : <td className={s.kind}>{m.kind}</td>}
              <td>
                <span className={s.monitorName} title={m.jobs.length ? `jobs: ${m.jobs.join(", ")}` : "no job in any TA"}>
                  <span className={s.ns}>{m.namespace}/</span>
                  {m.name}
                </span>
              </td>
              {compact ? null : (
                <td>
                  <Annotations m={m} showKey={annotationKeys.length > 1} />
                </td>
              )}
              <td className={s.nowrap}>
                {m.expectedRole ?? (
                  <span className={s.ambiguous} title="its recognised annotation keys route it to different TAs">
                    ambiguous
                  </span>
                )}
              </td>
              <td>
                <Holders m={m} />
              </td>
              {compact ? (
                <td className="num" title={roles.map((r) => `${r}: ${fmt(m.targets[r])}`).join(", ")}>
                  {fmt(roles.reduce((t, r) => t + (m.targets[r] ?? 0), 0))}
                </td>
              ) : (
                roles.map((r) => (
                  <td key={r} className={`num ${m.targets[r] ? "" : s.zero}`}>
                    {fmt(m.targets[r])}
                  </td>
                ))
              )}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

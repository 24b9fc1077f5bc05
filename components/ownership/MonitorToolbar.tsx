import type { Ownership, Role } from "@/lib/model";
import { OWNERSHIP_HELP, OWNERSHIP_STATES, OWNERSHIP_TONE, isFiltered } from "@/lib/views/ownership-view";
import type { MonitorFilterApi } from "./useMonitorFilter";
import s from "./ownership.module.css";

interface Props {
  api: MonitorFilterApi;
  counts: Record<Ownership, number> | null;
  roles: Role[];
}

/** State toggles (with their counts), role and text filters; every change goes to the URL. */
export function MonitorToolbar({ api, counts, roles }: Props) {
  const { filter } = api;
  const toggle = (o: Ownership) =>
    api.setStates(filter.states.includes(o) ? filter.states.filter((x) => x !== o) : OWNERSHIP_STATES.filter((x) => x === o || filter.states.includes(x)));
  return (
    <div className={s.toolbar}>
      <div className={s.chips} role="group" aria-label="Filter by ownership state">
        {OWNERSHIP_STATES.map((o) => {
          const n = counts?.[o] ?? 0;
          const on = filter.states.includes(o);
          return (
            <button
              key={o}
              type="button"
              className={`${s.chip} ${n > 0 && o !== "ok" ? s[`chip_${OWNERSHIP_TONE[o]}`] : ""}`}
              aria-pressed={on}
              title={`${o}: ${OWNERSHIP_HELP[o]}`}
              onClick={() => toggle(o)}
            >
              {o} <strong>{n}</strong>
            </button>
          );
        })}
      </div>
      {roles.length > 1 ? (
        <label className={s.field}>
          <span>Role</span>
          <select className="input" value={filter.role ?? ""} onChange={(e) => api.setRole((e.target.value || null) as Role | null)}>
            <option value="">both</option>
            {roles.map((r) => (
              <option key={r} value={r}>
                {r}
              </option>
            ))}
          </select>
        </label>
      ) : null}
      <label className={s.field}>
        <span className="sr-only">Search monitors</span>
        <input
          className={`input ${s.search}`}
          type="search"
          placeholder="namespace, name, job…"
          value={filter.q}
          onChange={(e) => api.setQ(e.target.value)}
        />
      </label>
      {/* always rendered so the toolbar does not shift; hidden (and out of the tab order) when there is nothing to clear */}
      <button type="button" className={`btn btn-ghost ${isFiltered(filter) ? "" : s.invisible}`} onClick={api.clear}>
        Clear filters
      </button>
    </div>
  );
}

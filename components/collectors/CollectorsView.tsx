"use client";
import type { CollectorsView as CollectorsData } from "@/lib/views/collectors";
import { useCollectors } from "@/components/data/queries";
import { EmptyState, Panel } from "@/components/ui/Panel";
import { FilteredOut, ListState, ViewState, type ViewStatus } from "@/components/ui/ViewState";
import { collectorSources, filterCollectors, sortCollectors } from "@/lib/views/collectors-view";
import { CollectorTable } from "./CollectorTable";
import { CollectorsSkeleton } from "./CollectorsSkeleton";
import { RolePanel } from "./RolePanel";
import { useCollectorFilter } from "./useCollectorFilter";
import s from "./collectors.module.css";
import { formatCount } from "@/lib/format";

const API = "GET /api/v1/collectors";

/** Collectors per role: targets per collector, imbalance, where the TA and Kubernetes disagree, and every collector. */
export function CollectorsView({ embed = false }: { embed?: boolean }) {
  const q = useCollectors();
  const f = useCollectorFilter();
  return (
    <ViewState query={q} api={API} skeleton={(note) => <CollectorsSkeleton embed={embed} note={note} />} stale={(v) => collectorSources(v.stale)}>
      {(v, status) => <CollectorsBody v={v} status={status} f={f} embed={embed} />}
    </ViewState>
  );
}

function CollectorsBody({ v, status, f, embed }: { v: CollectorsData; status: ViewStatus; f: ReturnType<typeof useCollectorFilter>; embed: boolean }) {
  const all = v.roles.flatMap((r) => r.collectors);
  const shown = sortCollectors(filterCollectors(all, f.q), f.sort, f.dir);
  const hidden = all.length - shown.length;
  const show = (text: string) => {
    f.setQ(text);
    document.getElementById("all-collectors")?.scrollIntoView({ behavior: "smooth", block: "start" });
  };

  return (
    <div className={embed ? s.embed : undefined}>
      <div className="page-head">
        {embed ? <h1 className={s.embedTitle}>Collectors</h1> : <h1>Collectors</h1>}
        {embed ? null : <p>{v.cluster}: how each TA spreads targets over its collector pods, and which pods it gets wrong</p>}
        <span style={{ marginLeft: "auto" }}>{status.age}</span>
      </div>
      {status.banners}
      <div className={s.stack}>
        {v.roles.length === 0 ? (
          <Panel title="Collectors">
            <EmptyState title="No Target Allocator is configured for this cluster" hint="Add a targetAllocators entry to the cluster's configuration." />
          </Panel>
        ) : null}
        {v.roles.map((r) => (
          <RolePanel key={r.role} role={r} compact={embed} onShow={embed ? undefined : show} />
        ))}
        {embed ? null : (
          <div id="all-collectors" className={s.anchor}>
            <Panel title="All collectors" right={<span className="age">{hidden > 0 ? `${formatCount(shown.length)} of ${formatCount(all.length)}` : formatCount(all.length)} collectors</span>}>
              <div className={s.toolbar}>
                <label>
                  <span className="sr-only">Filter collectors</span>
                  <input className={`input ${s.search}`} type="search" placeholder="id, node, zone, phase, not_eligible, ta_only…" value={f.q} onChange={(e) => f.setQ(e.target.value)} />
                </label>
                <button type="button" className={`btn btn-ghost ${f.q ? "" : s.invisible}`} onClick={() => f.setQ("")}>
                  Clear filter
                </button>
              </div>
              <ListState
                empty={all.length === 0}
                filteredOut={shown.length === 0}
                emptyState={<EmptyState title="No collectors" hint="No agent pod matches the selectors, and no TA lists a collector." />}
                filteredState={<FilteredOut title={`No collector matches “${f.q}”`} hidden={hidden} noun="collector" by="the filter" clearLabel="Clear filter" onClear={() => f.setQ("")} />}
              >
                <CollectorTable rows={shown} sort={f.sort} dir={f.dir} onSort={f.sortBy} />
              </ListState>
            </Panel>
          </div>
        )}
      </div>
    </div>
  );
}

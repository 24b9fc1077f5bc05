"use client";
/**
 * Targets: "who scrapes X". Search and filters live in the URL; the server filters and paginates; the list is virtualized
 * so 150,000 targets scroll like 50.
 */
import { usePathname, useSearchParams } from "next/navigation";
import { ROLES } from "@/lib/model";
import { filterParams, isFiltered, toggleClass } from "@/lib/views/target-window";
import { useTargetFacets, useTargetHead } from "@/components/data/target-queries";
import { ClassChips } from "@/components/targets/ClassChips";
import { FilterPins } from "@/components/targets/FilterPins";
import { SearchBox } from "@/components/targets/SearchBox";
import { TargetsEmpty } from "@/components/targets/TargetsEmpty";
import { PAGE_SIZE, TargetTable } from "@/components/targets/TargetTable";
import type { FilterPatch, RowLinks } from "@/components/targets/TargetRowView";
import { NO_FILTERS, serializeTargetFilters, useTargetFilters } from "@/components/targets/useTargetFilters";
import { DataAge } from "@/components/ui/DataAge";
import { ViewState, type ViewStatus } from "@/components/ui/ViewState";
import type { TargetsView as TargetsData } from "@/components/data/queries";
import styles from "./targets.module.css";
import { formatCount, ROLE_TITLE } from "@/lib/format";

const LOADING_ROWS = 14;

export function TargetsView({ embed = false }: { embed?: boolean }) {
  const [filters, setFilters] = useTargetFilters();
  const pathname = usePathname();
  const search = useSearchParams();
  const params = filterParams(filters);
  const head = useTargetHead(params, PAGE_SIZE);
  // class chips count under every filter but the class one (so a chip shows what pressing it would add)
  const { class: classFilter, ...withoutClass } = params;
  const facets = useTargetFacets(withoutClass, Boolean(classFilter));
  const counts = classFilter ? facets.data : head.data?.byClass;
  const filtered = isFiltered(filters);

  const base = `${pathname}?${search.toString()}`;
  const links: RowLinks = {
    href: (patch: FilterPatch) => serializeTargetFilters(base, patch),
    apply: (patch: FilterPatch) => setFilters(patch, { history: "push" }),
  };
  const clear = () => setFilters(NO_FILTERS, { history: "push" });

  // The skeleton is the view itself without data (toolbar usable, loading rows where the list goes), so the first answer
  // fills it in place.
  const frame = (d: TargetsData | undefined, status: ViewStatus | null, note: string | null = null) => {
    const hidden = d ? d.total - d.matched : 0;
    const empty = <TargetsEmpty filtered={filtered} hidden={hidden} failing={Boolean(d?.stale.length)} onClear={clear} />;
    let headline = note ?? "loading…";
    if (d) headline = filtered ? `${formatCount(d.matched)} of ${formatCount(d.total)} match` : `${formatCount(d.total)} targets, who scrapes each`;
    return (
      <div className={`${styles.root} ${embed ? styles.embed : ""}`}>
        <div className={`${styles.head} ${embed ? styles.embedHead : ""}`}>
          {embed ? <strong>Targets</strong> : <h1>Targets</h1>}
          <p aria-live="polite" data-testid="targets-headline">
            {headline}
          </p>
          <span className={styles.age}>
            {status ? status.age : <DataAge at={undefined} />}
          </span>
        </div>
        {status?.banners}
        <div className={styles.toolbar}>
          <SearchBox value={filters.q ?? ""} onCommit={(q) => setFilters({ q: q.trim() ? q : null })} />
          <select className={`input ${styles.role}`} aria-label="Role" value={filters.role ?? ""} onChange={(e) => setFilters({ role: ROLES.find((r) => r === e.target.value) ?? null }, { history: "push" })}>
            <option value="">All roles</option>
            {ROLES.map((r) => (
              <option key={r} value={r}>
                {ROLE_TITLE[r]}
              </option>
            ))}
          </select>
          <ClassChips counts={counts} selected={filters.class} onToggle={(c) => setFilters({ class: toggleClass(filters.class, c) }, { history: "push" })} />
          <FilterPins filters={filters} filtered={filtered} onRemove={(k) => setFilters({ [k]: null }, { history: "push" })} onClear={clear} />
        </div>
        <TargetTable
          key={JSON.stringify(params)}
          params={params}
          firstPage={d?.rows}
          count={d?.matched ?? LOADING_ROWS}
          stale={!d || Boolean(status?.updating)}
          sort={filters.sort}
          onSort={(sort) => setFilters({ sort })}
          links={links}
          empty={empty}
        />
      </div>
    );
  };
  return (
    <ViewState query={head} api="GET /api/v1/targets" skeleton={(note) => frame(undefined, null, note)}>
      {(d, status) => frame(d, status)}
    </ViewState>
  );
}

"use client";
/**
 * Unassigned and lost: per role, what the TA knows it could not place (unassigned) and what it lost without knowing
 * (ghosts: targets still assigned to a collector that is not eligible), then the ghosts grouped by collector.
 */
import { usePathname, useSearchParams } from "next/navigation";
import { parseAsStringLiteral, useQueryState } from "nuqs";
import { ROLES } from "@/lib/model";
import { lostListState, type GhostGroup } from "@/lib/views/lost";
import { useLost } from "@/components/data/queries";
import { GhostGroups } from "@/components/lost/GhostGroups";
import { LostGauges } from "@/components/lost/LostGauges";
import { LostSkeleton } from "@/components/lost/LostSkeleton";
import { serializeTargetFilters } from "@/components/targets/useTargetFilters";
import type { LostView as LostData } from "@/lib/views/lost";
import { EmptyState, Panel } from "@/components/ui/Panel";
import { FilteredOut, ListState, ViewState, type ViewStatus } from "@/components/ui/ViewState";
import styles from "./lost.module.css";
import { formatCount, ROLE_TITLE } from "@/lib/format";
import { keptParams } from "@/lib/views/cluster-link";

export const GHOST_SENTENCE =
  "These targets still carry a collector name, so the TA counts them as assigned: nothing scrapes them and its unassigned gauge stays at 0.";

export function LostView({ embed = false }: { embed?: boolean }) {
  const q = useLost();
  return (
    <ViewState query={q} api="GET /api/v1/lost" skeleton={(note) => <LostSkeleton embed={embed} note={note} />}>
      {(v, status) => <LostBody v={v} status={status} embed={embed} />}
    </ViewState>
  );
}

function LostBody({ v, status, embed }: { v: LostData; status: ViewStatus; embed: boolean }) {
  const [role, setRole] = useQueryState("role", parseAsStringLiteral(ROLES));
  const pathname = usePathname();
  const search = useSearchParams();
  const state = lostListState(v, role);
  const anyGhost = v.roles.some((r) => r.groups.length);

  // the Targets view, filtered to this collector's ghosts; cluster and theme carried over
  const keep = keptParams(search);
  const targetsPath = pathname.startsWith("/embed") ? "/embed/targets" : "/targets";
  const targetsHref = (g: GhostGroup) => serializeTargetFilters(`${targetsPath}?${keep}`, { class: ["ghost"], collector: g.collector, role: g.role });

  const roleFilter =
    v.roles.length > 1 && anyGhost ? (
      <div className={styles.roleFilter} role="group" aria-label="Role">
        {[null, ...v.roles.map((r) => r.role)].map((r) => (
          <button key={r ?? "all"} type="button" aria-pressed={role === r} onClick={() => setRole(r)}>
            {r ?? "All roles"}
          </button>
        ))}
      </div>
    ) : null;

  const list = (
    <ListState
      unknown={
        state.kind === "unknown" ? (
          <EmptyState
            title="Ghost targets unknown"
            hint={`The ${state.roles.join(" and ")} TA has not answered yet (see the failing source above): its assignments, and so its ghosts, are unknown.`}
          />
        ) : null
      }
      empty={state.kind === "none"}
      filteredOut={state.kind === "filtered"}
      emptyState={<EmptyState title="No lost targets: every assigned target sits on an eligible collector." />}
      filteredState={
        state.kind === "filtered" ? (
          <FilteredOut title={`No ghost targets for the ${ROLE_TITLE[role!].toLowerCase()}`} hidden={state.hiddenTargets} noun="target" by="the role filter" clearLabel="Show all roles" onClear={() => setRole(null)} />
        ) : null
      }
    >
      {() => (state.kind === "groups" ? <GhostGroups groups={state.groups} showRole={!role && v.roles.length > 1} targetsHref={targetsHref} /> : null)}
    </ListState>
  );
  const summary = state.kind === "groups" ? `${formatCount(state.targets)} targets on ${state.groups.length} collector${state.groups.length === 1 ? "" : "s"}` : null;

  return (
    <div className={embed ? styles.embed : undefined}>
      <div className="page-head" style={embed ? { marginBottom: 8 } : undefined}>
        {embed ? <strong>Unassigned and lost</strong> : <h1>Unassigned and lost</h1>}
        {embed ? null : <p>targets no collector scrapes, per Target Allocator</p>}
        <span style={{ marginLeft: "auto" }}>{status.age}</span>
      </div>
      {status.banners}
      <div className={styles.cards}>
        {v.roles.map((r) => (
          <LostGauges key={r.role} r={r} embed={embed} />
        ))}
      </div>
      <p className={styles.explain}>
        <strong>Why ghosts are invisible to the TA: </strong>
        {GHOST_SENTENCE}
      </p>
      <Panel
        title="Ghost targets by collector"
        right={
          <span style={{ display: "flex", gap: 10, alignItems: "center" }}>
            {summary && !embed ? <span className="age">{summary}</span> : null}
            {roleFilter}
          </span>
        }
      >
        {list}
      </Panel>
    </div>
  );
}

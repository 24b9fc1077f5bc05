"use client";
import { ROLES, type Role } from "@/lib/model";
import type { ZoneFlow } from "@/lib/views/nodes";
import { flowHeadline } from "@/lib/views/node-flow";
import { CLASS_LABEL } from "@/components/overview/ClassBar";
import { EmptyState, Panel, PanelGuard } from "@/components/ui/Panel";
import { ZoneFlowChart } from "./ZoneFlowChart";
import styles from "./ZoneFlow.module.css";
import { formatCount, formatShare, ROLE_SHORT } from "@/lib/format";

interface Props {
  flowsByRole: Partial<Record<Role, ZoneFlow[]>>;
  /** the role chosen in the URL, or null for the view's default */
  role: Role | null;
  defaultRole: Role | null;
  onRole: (r: Role | null) => void;
  focusZone: string | null;
  height: number;
  fallback: ZoneFlow[];
}

const LEGEND = [
  { cls: "local", label: CLASS_LABEL.local },
  { cls: "cross_node", label: CLASS_LABEL.cross_node },
  { cls: "cross_zone", label: CLASS_LABEL.cross_zone },
  { cls: "nodeless", label: CLASS_LABEL.nodeless },
  { cls: "ghost", label: CLASS_LABEL.ghost },
] as const;

/** The locality picture: which zone's targets are scraped from which zone, for one agent at a time. */
function ZoneFlowPanelInner({ flowsByRole, role, defaultRole, onRole, focusZone, height, fallback }: Props) {
  const roles = ROLES.filter((r) => flowsByRole[r]);
  const active = role && flowsByRole[role] ? role : defaultRole;
  const flows = (active && flowsByRole[active]) || fallback;
  const h = flowHeadline(flows);
  const nodeBound = h.total - h.nodeless - h.ghost;
  const toggle =
    roles.length > 1 ? (
      <span className={styles.seg} role="group" aria-label="Agent">
        {roles.map((r) => (
          <button key={r} type="button" aria-pressed={r === active} onClick={() => onRole(r === defaultRole ? null : r)}>
            {ROLE_SHORT[r]}
          </button>
        ))}
      </span>
    ) : null;
  return (
    <Panel title="Zone flow" right={toggle}>
      {flows.length === 0 ? (
        <div style={{ height: height + 58 }}>
          <EmptyState title="No assigned targets" hint="This agent's Target Allocator lists no target with a collector." />
        </div>
      ) : (
        <>
          <div className={styles.head}>
            <div className={styles.headItem} title="locality ratio: local / (local + cross-node + cross-zone)">
              <span className={styles.big} style={{ color: h.local === nodeBound && !h.ghost ? "var(--ok)" : undefined }}>
                {formatShare(h.local, nodeBound)}
              </span>
              local
            </div>
            <div className={styles.headItem}>
              <strong>{formatShare(h.sameZone, nodeBound)}</strong>in zone
            </div>
            <div className={styles.headItem}>
              <strong style={{ color: h.crossZone ? "var(--c-cross_zone)" : undefined }}>{formatCount(h.crossZone)}</strong>cross-zone
            </div>
            <div className={styles.headItem}>
              <strong style={{ color: h.ghost ? "var(--c-ghost)" : undefined }}>{formatCount(h.ghost)}</strong>ghosts
            </div>
            <div className={styles.headItem}>
              <strong>{formatCount(h.nodeless)}</strong>no node
            </div>
          </div>
          <div className={styles.cols} aria-hidden="true">
            <span>target zone</span>
            <span>collector zone</span>
          </div>
          <ZoneFlowChart flows={flows} height={height} focusZone={focusZone} />
          <div className="legend">
            {LEGEND.map((l) => (
              <span key={l.cls}>
                <i style={{ background: `var(--c-${l.cls})` }} />
                {l.label}
              </span>
            ))}
          </div>
        </>
      )}
    </Panel>
  );
}

/** ZoneFlowPanel inside its own boundary: a failure while computing it fails this panel only. */
export function ZoneFlowPanel(props: Props) {
  return (
    <PanelGuard title={"Zone flow"}>
      <ZoneFlowPanelInner {...props} />
    </PanelGuard>
  );
}

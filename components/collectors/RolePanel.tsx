import type { CollectorsView } from "@/lib/views/collectors";
import { MANY_COLLECTORS, countByEligibility, eligibleStats } from "@/lib/views/collectors-view";
import { EmptyState, Panel, PanelGuard } from "@/components/ui/Panel";
import { Disagreements } from "./Disagreements";
import { Distribution } from "./Distribution";
import { EligibilityLegend } from "./EligibilityLegend";
import { ImbalanceStats } from "./ImbalanceStats";
import { TargetsBarChart } from "./TargetsBarChart";
import s from "./collectors.module.css";
import { formatCount, ROLE_TITLE } from "@/lib/format";

type RoleView = CollectorsView["roles"][number];
/** Up to this many collectors, horizontal bars with full names read better than a few lonely columns. */
const FEW = 6;

function chartHeight(n: number, compact?: boolean): number {
  if (n <= FEW) return 36 + n * 26;
  return compact ? 130 : 200;
}

/** One role: targets per collector (bars, or a distribution when there are many), imbalance, and TA/Kubernetes disagreements. */
function RolePanelInner({ role, compact, onShow }: { role: RoleView; compact?: boolean; onShow?: (q: string) => void }) {
  const counts = countByEligibility(role.collectors);
  const stats = eligibleStats(role.collectors);
  const many = role.collectors.length > MANY_COLLECTORS;
  const title = ROLE_TITLE[role.role];
  return (
    <Panel
      title={title}
      right={
        <span className={s.headBadges}>
          {role.strategy ? <span className="badge muted">{role.strategy}</span> : <span className="badge warn">strategy unknown</span>}
          <span className="age">
            {formatCount(counts.eligible)} of {formatCount(role.collectors.length)} eligible in TA
          </span>
        </span>
      }
    >
      {role.collectors.length === 0 ? (
        <EmptyState title="No collectors for this role" hint="No pod matches the collector selector, and the TA lists none." />
      ) : (
        <>
          <div className={compact ? s.roleBodyCompact : s.roleBody}>
            <div className={s.chartArea}>
              <h3 className={compact ? "sr-only" : s.chartTitle}>{many ? `Targets per collector: distribution over ${formatCount(role.collectors.length)} collectors` : "Targets per collector"}</h3>
              {many ? (
                <Distribution rows={role.collectors} mean={stats.mean} compact={compact} />
              ) : (
                <TargetsBarChart rows={role.collectors} mean={stats.mean} height={chartHeight(role.collectors.length, compact)} horizontal={role.collectors.length <= FEW} label={title} />
              )}
              <EligibilityLegend counts={counts} />
            </div>
            <ImbalanceStats role={role} compact={compact} />
          </div>
          <Disagreements role={role} onShow={onShow} compact={compact} />
        </>
      )}
    </Panel>
  );
}

/** RolePanel inside its own boundary: a failure while computing it fails this panel only. */
export function RolePanel(props: { role: RoleView; compact?: boolean; onShow?: (q: string) => void }) {
  return (
    <PanelGuard title={ROLE_TITLE[props.role.role]}>
      <RolePanelInner {...props} />
    </PanelGuard>
  );
}

import { Panel, Skeleton } from "@/components/ui/Panel";
import s from "./collectors.module.css";
import { ROLE_TITLE } from "@/lib/format";
import { ROLES } from "@/lib/model";
import { SkeletonNote } from "@/components/ui/ViewState";

/** Shaped like the view: one panel per role (chart + figures), then the table. */
export function CollectorsSkeleton({ embed, note }: { embed?: boolean; note?: string | null }) {
  return (
    <div aria-busy="true" aria-label="Loading collectors">
      <div className="page-head">
        <Skeleton height={embed ? 18 : 24} width={200} />
        <SkeletonNote note={note} />
      </div>
      <div className={s.stack}>
        {ROLES.map((r) => (
          <Panel key={r} title={ROLE_TITLE[r]} aria-busy>
            <div className={embed ? s.roleBodyCompact : s.roleBody}>
              <Skeleton height={embed ? 130 : 200} />
              <Skeleton height={embed ? 60 : 120} />
            </div>
          </Panel>
        ))}
        {embed ? null : (
          <Panel title="All collectors" aria-busy>
            {Array.from({ length: 6 }, (_, i) => (
              <div key={i} style={{ marginTop: 8 }}>
                <Skeleton height={20} />
              </div>
            ))}
          </Panel>
        )}
      </div>
    </div>
  );
}

import { Panel, Skeleton } from "@/components/ui/Panel";
import s from "./ownership.module.css";
import { SkeletonNote } from "@/components/ui/ViewState";

/** Shaped like the view: header, the split bars, a toolbar and table rows. */
export function OwnershipSkeleton({ embed, note }: { embed?: boolean; note?: string | null }) {
  return (
    <div aria-busy="true" aria-label="Loading monitor ownership">
      <div className="page-head">
        <Skeleton height={embed ? 18 : 24} width={220} />
        <SkeletonNote note={note} />
      </div>
      <div className={embed ? undefined : s.layout}>
        <Panel title="Split between the agents" aria-busy>
          <Skeleton height={22} />
          <div style={{ height: 10 }} />
          <Skeleton height={22} />
          <div style={{ height: 14 }} />
          <Skeleton height={40} />
        </Panel>
        <Panel title="Monitors" aria-busy>
          <Skeleton height={28} width="70%" />
          {Array.from({ length: embed ? 4 : 8 }, (_, i) => (
            <div key={i} style={{ marginTop: 10 }}>
              <Skeleton height={18} />
            </div>
          ))}
        </Panel>
      </div>
    </div>
  );
}

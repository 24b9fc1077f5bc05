import type { Role } from "@/lib/model";
import s from "./ownership.module.css";

/** One sentence for newcomers: how a monitor is routed between the TAs (or why routing does not apply). */
export function RoutingRule({ roles, annotationKey }: { roles: Role[]; annotationKey: string }) {
  if (roles.length === 1) {
    return (
      <p className={s.rule}>
        This cluster runs a single Target Allocator ({roles[0]}): there is no other agent to route to, so it is every monitor&apos;s expected owner,
        and a monitor it does not hold is scraped by nothing.
      </p>
    );
  }
  return (
    <p className={s.rule}>
      <strong>Routing:</strong> a monitor goes to the cluster-scraper TA only when its annotation <code>{annotationKey}</code> is exactly{" "}
      <code>cluster-scraper</code>; any other value, or none, leaves it to the per-node TA. Static jobs are configured in each TA and are not
      routed.
    </p>
  );
}

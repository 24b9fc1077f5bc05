import type { Role } from "@/lib/model";
import s from "./ownership.module.css";

const Keys = ({ keys }: { keys: readonly string[] }) => (
  <>
    {keys.map((k, i) => (
      <span key={k}>
        {i === 0 ? null : i === keys.length - 1 ? " or " : ", "}
        <code>{k}</code>
      </span>
    ))}
  </>
);

/**
 * One sentence for newcomers: how a monitor is routed between the TAs (or why routing does not apply), naming the
 * annotation keys the dashboard recognises: the configured one, or both spellings.
 */
export function RoutingRule({ roles, annotationKeys, configured }: { roles: Role[]; annotationKeys: readonly string[]; configured: boolean }) {
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
      <strong>Routing:</strong> a monitor goes to the cluster-scraper TA only when its annotation <Keys keys={annotationKeys} /> is exactly{" "}
      <code>cluster-scraper</code>; any other value, or none, leaves it to the per-node TA.{" "}
      {configured
        ? "The key is set by scraperAnnotation in this dashboard's configuration: no other spelling is recognised."
        : "Each TA reads one of these keys, depending on the operator's build (the earlier build reads the second): this dashboard recognises both."}{" "}
      Static jobs are configured in each TA and are not routed.
    </p>
  );
}

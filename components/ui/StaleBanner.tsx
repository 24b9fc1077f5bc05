import type { SourceView } from "@/lib/views/summary";
import { clockTime } from "@/lib/format";

/** Names every source that failed at the last poll; the view keeps showing their last good data. */
export function StaleBanner({ stale }: { stale: readonly SourceView[] }) {
  if (!stale.length) return null;
  const hasData = stale.some((s) => s.lastSuccess);
  return (
    <div className={`banner ${hasData ? "warn" : "bad"}`} role="status" aria-live="polite">
      <div>
        <strong>
          {stale.length === 1 ? "One source is failing" : `${stale.length} sources are failing`}
          {hasData ? `: showing ${stale.length === 1 ? "its" : "their"} last good data` : ""}
        </strong>
        <ul>
          {stale.map((s) => (
            <li key={s.source}>
              <code>{s.source}</code> {s.state === "stale" ? "stale" : "unavailable"}: {s.error?.message ?? "no answer"}
              {s.lastSuccess ? ` (last success ${clockTime(s.lastSuccess)})` : ""}
              {s.error?.hint ? <span style={{ color: "var(--muted)" }}> - {s.error.hint}</span> : null}
            </li>
          ))}
        </ul>
      </div>
    </div>
  );
}

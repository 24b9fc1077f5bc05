import type { ChurnView } from "@/lib/views/churn";
import { sourceLine } from "@/lib/views/churn-view";
import { utcMinute } from "@/lib/format";

/**
 * Where the churn history lives. SQLite that failed: a warning with the file and the error (history is lost on restart).
 * Memory on purpose: a quiet badge. SQLite: nothing but a badge naming the file.
 */
export function HistoryBackendBanner({ backend }: { backend: ChurnView["backend"] }) {
  if (backend.backend !== "memory" || !backend.error) return null;
  return (
    <div className="banner warn" role="status">
      <div>
        <strong>History is kept in memory only: {backend.error}</strong>
        Churn recorded so far is lost when the dashboard restarts, and older history from the file is not shown.
      </div>
    </div>
  );
}

export function HistoryBackendBadge({ backend }: { backend: ChurnView["backend"] }) {
  if (backend.backend === "memory") {
    return (
      <span className="badge warn" title={backend.error ?? "history.path is :memory: in the configuration"}>
        history in memory
      </span>
    );
  }
  return (
    <span className="badge muted" title={backend.path ? `SQLite: ${backend.path}` : "SQLite"}>
      history: SQLite
    </span>
  );
}

/** Which source answered, when a Prometheus backend is configured: "from Prometheus at host", "local history". */
export function HistorySourceBadge({ source }: { source: ChurnView["source"] | undefined }) {
  const line = sourceLine(source);
  if (!line) return null;
  return (
    <span className={`badge ${line.tone}`} title={line.title} data-testid="churn-source">
      {line.text}
    </span>
  );
}

/** Prometheus was asked and failed: the local store answered. Says so, with the error and its hint. */
export function HistorySourceBanner({ source }: { source: ChurnView["source"] | undefined }) {
  if (!source?.fallback) return null;
  return (
    <div className="banner warn" role="status" aria-live="polite">
      <div>
        <strong>Prometheus failed: showing local history{source.localFrom !== null ? ` (since ${utcMinute(source.localFrom)} UTC)` : ""}</strong>
        <code>{source.error?.message ?? source.prometheus?.endpoint}</code>
        {source.error?.hint ? <span style={{ color: "var(--muted)" }}> - {source.error.hint}</span> : null}
      </div>
    </div>
  );
}

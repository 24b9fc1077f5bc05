import type { ChurnView } from "@/lib/views/churn";

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

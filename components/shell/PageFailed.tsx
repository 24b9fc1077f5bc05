"use client";
import Link from "next/link";

/** What a page shows when its view threw while rendering (app/error.tsx and friends): the error, a retry, a way home. */
export function PageFailed({ error, retry, home = true }: { error: unknown; retry: () => void; home?: boolean }) {
  const e = error instanceof Error ? (error as Error & { digest?: string }) : null;
  const message = e ? e.message || e.name : String(error);
  return (
    <div className="banner bad" role="alert">
      <div>
        <strong>This page failed while rendering</strong>
        {message}
        {e?.digest ? <span style={{ color: "var(--muted)" }}> (server log reference {e.digest})</span> : null}
        <div className="banner-actions">
          <button type="button" className="btn" onClick={() => retry()}>
            Try again
          </button>
          {home ? (
            <Link className="btn btn-ghost" href="/" prefetch={false}>
              Overview
            </Link>
          ) : null}
        </div>
      </div>
    </div>
  );
}

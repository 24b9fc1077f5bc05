"use client";
import { useEffect, useState } from "react";
import { formatAgo, isoTime } from "@/lib/format";

/** "updated 4 s ago", re-rendered every second; turns into a warning once the data is older than two poll intervals. */
export function DataAge({ at, pollIntervalMs }: { at: number | undefined; pollIntervalMs?: number }) {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(t);
  }, []);
  if (!at) return <span className="age">no data yet</span>;
  const old = pollIntervalMs !== undefined && now - at > 2 * pollIntervalMs + 2000;
  return (
    // the server renders it a moment before the browser hydrates it: the seconds may differ, and the next tick sets them
    <span className="age" title={isoTime(at)} style={old ? { color: "var(--warn)" } : undefined} suppressHydrationWarning>
      updated {formatAgo(at, now)}
    </span>
  );
}

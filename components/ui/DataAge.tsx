"use client";
import { useEffect, useState } from "react";

/** "updated 4 s ago", re-rendered every second; turns into a warning once the data is older than two poll intervals. */
export function DataAge({ at, pollIntervalMs }: { at: number | undefined; pollIntervalMs?: number }) {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(t);
  }, []);
  if (!at) return <span className="age">no data yet</span>;
  const s = Math.max(0, Math.round((now - at) / 1000));
  const old = pollIntervalMs !== undefined && now - at > 2 * pollIntervalMs + 2000;
  const text = s < 60 ? `${s} s` : s < 3600 ? `${Math.floor(s / 60)} min` : `${Math.floor(s / 3600)} h`;
  return (
    <span className="age" title={new Date(at).toISOString()} style={old ? { color: "var(--warn)" } : undefined}>
      updated {text} ago
    </span>
  );
}

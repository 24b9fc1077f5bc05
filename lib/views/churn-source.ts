/**
 * Which source answers the churn view: the local history store (SQLite or memory, bounded retention) or a
 * Prometheus-compatible backend that scraped the dashboard's `allocation_lens_` series (history.prometheus). Pure.
 */
import { z } from "zod";
import { CHURN_SOURCES } from "@/lib/api/schemas";

export { CHURN_SOURCES };

export type ChurnSourceParam = (typeof CHURN_SOURCES)[number];
export const churnSourceSchema = z.enum(CHURN_SOURCES, { message: 'expected "auto", "local" or "prometheus"' });

/** The view's account of its source: declared by its schema in lib/api/schemas.ts. */
export type { ChurnSource } from "@/lib/api/schemas";

/** `scheme://host[:port]/path` of a URL: never its user, password, query or fragment. */
export function redactEndpoint(url: string): string {
  try {
    const u = new URL(url);
    const path = u.pathname.replace(/\/+$/, "");
    return `${u.protocol}//${u.host}${path}`;
  } catch {
    return "(invalid URL)";
  }
}

export type SourceChoice = { ok: true; source: "local" | "prometheus" } | { ok: false; message: string };

/**
 * `auto` (the default) reads Prometheus when one is configured and the range starts before the oldest data the local
 * store holds (or it holds none), the local store otherwise. A node or pod filter reads the local store: the backend's
 * series are per role and per pod, not per event.
 */
export function chooseSource(
  requested: ChurnSourceParam,
  o: { configured: boolean; from: number; localOldest: number | null; filtered: boolean },
): SourceChoice {
  if (requested === "local") return { ok: true, source: "local" };
  if (requested === "prometheus") {
    if (!o.configured) return { ok: false, message: "source: prometheus is not configured (add history.prometheus to the configuration), use source=local or auto" };
    if (o.filtered) return { ok: false, message: "source: node and pod filters read the local history only, use source=local or auto" };
    return { ok: true, source: "prometheus" };
  }
  if (!o.configured || o.filtered) return { ok: true, source: "local" };
  return { ok: true, source: o.localOldest === null || o.from < o.localOldest ? "prometheus" : "local" };
}

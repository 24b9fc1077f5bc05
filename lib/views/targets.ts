/**
 * "Who scrapes X": server-side filtering and pagination of target rows. Filters are the URL's query parameters, validated
 * with zod; text search matches address, job, node and collector.
 */
import { z } from "zod";
import type { TargetRow } from "@/lib/analysis/types";
import { TARGET_CLASSES } from "@/lib/model";

export const targetQuerySchema = z
  .object({
    cluster: z.string().optional(),
    role: z.enum(["per-node", "cluster-scraper"]).optional(),
    class: z
      .string()
      .optional()
      .transform((v) => (v ? v.split(",").filter(Boolean) : []))
      .pipe(z.array(z.enum(TARGET_CLASSES as [string, ...string[]], { message: `expected classes among ${TARGET_CLASSES.join(", ")}` }))),
    node: z.string().optional(),
    collector: z.string().optional(),
    job: z.string().optional(),
    q: z.string().max(200).optional(),
    offset: z.coerce.number().int().min(0).default(0),
    limit: z.coerce.number().int().min(1).max(1000).default(100),
    sort: z.enum(["address", "job", "node", "collector", "class"]).default("job"),
  })
  .strict();

export type TargetQuery = z.infer<typeof targetQuerySchema>;

export interface TargetPage {
  total: number;
  matched: number;
  offset: number;
  limit: number;
  rows: TargetRow[];
  byClass: Record<string, number>;
}

export function matchTargets(rows: readonly TargetRow[], q: TargetQuery): TargetRow[] {
  const classes = q.class.length ? new Set(q.class) : null;
  const text = q.q?.trim().toLowerCase();
  return rows.filter(
    (t) =>
      (!q.role || t.role === q.role) &&
      (!classes || classes.has(t.class)) &&
      (!q.node || t.node === q.node || t.collectorNode === q.node) &&
      (!q.collector || t.collector === q.collector) &&
      (!q.job || t.job === q.job) &&
      (!text ||
        t.address.toLowerCase().includes(text) ||
        t.job.toLowerCase().includes(text) ||
        (t.node ?? "").toLowerCase().includes(text) ||
        t.collector.toLowerCase().includes(text)),
  );
}

const CLASS_ORDER: Record<string, number> = { ghost: 0, cross_zone: 1, cross_node: 2, nodeless: 3, local: 4 };

/** Code-point order: stable, locale-independent, and much cheaper than localeCompare over 150,000 rows. */
const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

interface Matched {
  rows: TargetRow[];
  byClass: Record<string, number>;
}

/** Filtered and sorted rows per snapshot (the rows array) and filter set: scrolling pages through them costs a slice. */
const cache = new WeakMap<readonly TargetRow[], Map<string, Matched>>();
const CACHE_PER_SNAPSHOT = 16;

function matchAndSort(rows: readonly TargetRow[], q: TargetQuery): Matched {
  const key = JSON.stringify({ ...q, offset: 0, limit: 0 });
  let perSnapshot = cache.get(rows);
  if (!perSnapshot) cache.set(rows, (perSnapshot = new Map()));
  const hit = perSnapshot.get(key);
  if (hit) return hit;
  const matched = matchTargets(rows, q);
  const byClass: Record<string, number> = {};
  for (const t of matched) byClass[t.class] = (byClass[t.class] ?? 0) + 1;
  const k = q.sort;
  if (k === "class") matched.sort((a, b) => CLASS_ORDER[a.class] - CLASS_ORDER[b.class] || cmp(a.job, b.job) || cmp(a.address, b.address));
  else matched.sort((a, b) => cmp(a[k] ?? "", b[k] ?? "") || cmp(a.address, b.address));
  const value = { rows: matched, byClass };
  if (perSnapshot.size >= CACHE_PER_SNAPSHOT) perSnapshot.delete(perSnapshot.keys().next().value!);
  perSnapshot.set(key, value);
  return value;
}

export function pageTargets(rows: readonly TargetRow[], q: TargetQuery): TargetPage {
  const m = matchAndSort(rows, q);
  return { total: rows.length, matched: m.rows.length, offset: q.offset, limit: q.limit, rows: m.rows.slice(q.offset, q.offset + q.limit), byClass: m.byClass };
}

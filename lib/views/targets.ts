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

export function pageTargets(rows: readonly TargetRow[], q: TargetQuery): TargetPage {
  const matched = matchTargets(rows, q);
  const byClass: Record<string, number> = {};
  for (const t of matched) byClass[t.class] = (byClass[t.class] ?? 0) + 1;
  const key = q.sort;
  const sorted =
    key === "class"
      ? [...matched].sort((a, b) => CLASS_ORDER[a.class] - CLASS_ORDER[b.class] || a.job.localeCompare(b.job) || a.address.localeCompare(b.address))
      : [...matched].sort((a, b) => (a[key] ?? "").localeCompare(b[key] ?? "") || a.address.localeCompare(b.address));
  return { total: rows.length, matched: matched.length, offset: q.offset, limit: q.limit, rows: sorted.slice(q.offset, q.offset + q.limit), byClass };
}

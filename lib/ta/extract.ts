/**
 * The hot path of a poll: validate one `/jobs/{job}/targets` payload and reduce it to what the analysis needs (address,
 * node, collector per target) in a single pass. It accepts exactly what `jobTargetsSchema` (lib/ta/schemas.ts) accepts
 * (a property test checks that); zod itself costs 4 to 10 times JSON.parse on the 5,000-collector answers of a large
 * cluster, where most of the bytes are collectors with no target. The labels are dropped here: only the node is kept.
 */
import { targetNode } from "@allocation-lens/allocation/node";

export interface AssignedTarget {
  address: string;
  node: string | null;
  collector: string;
}

/** What the analysis keeps of one job: its targets. */
export interface JobAssignment {
  targets: AssignedTarget[];
}

export interface ExtractedJob extends JobAssignment {
  /**
   * every collector the TA listed for this job, also those with no target: the reader merges them into the TA's collector
   * list and does not keep them per job (at 5,000 collectors and 400 jobs that would be 2 million references held
   * between polls and traced by every major GC)
   */
  collectors: string[];
}

export type ExtractResult = { ok: true; value: ExtractedJob } | { ok: false; path: string; message: string };

/** A JSON object (not null, not an array). */
export const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

const fail = (path: string, message: string): ExtractResult => ({ ok: false, path, message });

export function extractJobTargets(data: unknown): ExtractResult {
  if (!isPlainObject(data)) return fail("(root)", "expected an object of collectors");
  // Object.keys, not for-in: the answer is a 5,000-key object in dictionary mode, fresh from JSON.parse, for which for-in
  // builds its key list the slow way (2x the cost of this whole function). The array also serves as the collector list.
  const collectors = Object.keys(data);
  const targets: AssignedTarget[] = [];
  for (let c = 0; c < collectors.length; c++) {
    const collector = collectors[c];
    const entry = data[collector];
    if (!isPlainObject(entry)) return fail(collector, "expected an object with targets");
    const link = entry._link;
    if (link !== undefined && typeof link !== "string") return fail(`${collector}._link`, "expected a string");
    const items = entry.targets;
    if (items === null) continue;
    const failed = extractItems(collector, items, targets);
    if (failed) return failed;
  }
  return { ok: true, value: { collectors, targets } };
}

/**
 * Validates one collector's `targets` (an array of service-discovery items) and appends address, node and collector of
 * each to `into`; the failure, naming the path of the first problem, or null. Shared with the scanner (lib/ta/scan.ts).
 */
export function extractItems(collector: string, items: unknown, into: AssignedTarget[]): ExtractResult | null {
  if (!Array.isArray(items)) return fail(`${collector}.targets`, "expected an array");
  for (let i = 0; i < items.length; i++) {
    const item = items[i];
    if (!isPlainObject(item)) return fail(`${collector}.targets.${i}`, "expected an object");
    const addrs = item.targets;
    if (!Array.isArray(addrs) || addrs.length === 0) return fail(`${collector}.targets.${i}.targets`, "expected a non-empty array of addresses");
    for (let a = 0; a < addrs.length; a++) if (typeof addrs[a] !== "string") return fail(`${collector}.targets.${i}.targets.${a}`, "expected a string");
    const labels = item.labels;
    let node: string | null = null;
    if (labels !== undefined) {
      if (!isPlainObject(labels)) return fail(`${collector}.targets.${i}.labels`, "expected an object of strings");
      for (const k in labels) if (typeof labels[k] !== "string") return fail(`${collector}.targets.${i}.labels.${k}`, "expected a string");
      node = targetNode(labels as Record<string, string>);
    }
    into.push({ address: addrs[0] as string, node, collector });
  }
  return null;
}

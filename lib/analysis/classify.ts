/**
 * Target classification (docs/ARCHITECTURE.md, vocabulary): exactly one class per assigned target, checked in order
 * ghost, nodeless, local, cross_zone, cross_node.
 */
import type { TargetClass } from "@/lib/model";

export interface CollectorFacts {
  eligible: boolean;
  node: string | null;
  zone: string | null;
}

export function classify(
  targetNode: string | null,
  targetZone: string | null,
  collector: CollectorFacts | undefined,
): TargetClass {
  if (!collector || !collector.eligible) return "ghost";
  if (!targetNode) return "nodeless";
  if (collector.node === targetNode) return "local";
  if (targetZone && collector.zone && targetZone !== collector.zone) return "cross_zone";
  return "cross_node";
}

/** local / (local + cross_node + cross_zone); null when there is nothing node-bound to scrape. */
export function localityRatio(c: { local: number; cross_node: number; cross_zone: number }): number | null {
  const denominator = c.local + c.cross_node + c.cross_zone;
  return denominator === 0 ? null : c.local / denominator;
}

/** max/mean and coefficient of variation of targets per collector (over eligible collectors). */
export function imbalance(counts: readonly number[]): { maxOverMean: number | null; cv: number | null } {
  if (!counts.length) return { maxOverMean: null, cv: null };
  const mean = counts.reduce((s, v) => s + v, 0) / counts.length;
  if (mean === 0) return { maxOverMean: null, cv: null };
  const max = Math.max(...counts);
  const variance = counts.reduce((s, v) => s + (v - mean) ** 2, 0) / counts.length;
  return { maxOverMean: max / mean, cv: Math.sqrt(variance) / mean };
}

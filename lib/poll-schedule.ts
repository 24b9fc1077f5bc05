/**
 * When a cluster's next poll starts. Each cluster has a phase in the poll interval, from a hash of its name, and its polls
 * start at the instants of that phase (wall clock: `phase + k × interval`), as Prometheus spreads its scrapes over the
 * interval by a hash of each target. Clusters started together (a replica that takes many Leases at once, a restart) then
 * do not all poll at the same moment every interval: the reads of their TAs, the parsing and the answers spread over the
 * interval instead of meeting in one burst of CPU and memory, and a cluster keeps its phase when another replica takes
 * it over. Pure.
 */
import { fnv1a } from "@/lib/hash";

/** The cluster's phase in an interval of `intervalMs`: from 0 to intervalMs (excluded). */
export function pollPhaseMs(cluster: string, intervalMs: number): number {
  return intervalMs > 0 ? fnv1a(cluster) % Math.max(1, Math.round(intervalMs)) : 0;
}

/**
 * The wait before the next poll, at `now`, of a poll that was due at `dueAt`: the instant its timer was set for (an
 * instant of the cluster's phase), or its start when it had none (a cluster's first poll, or one started at once after
 * a poll that ran late). The next poll is due at the first instant of the phase at least one interval after `dueAt`:
 * one per interval on the phase, whatever the timer's own lateness; a cluster's first poll (at its start, whatever the
 * phase) is followed by one within one to two intervals; a poll that runs past the next instant is followed at once
 * (never two at a time), and the one after that is back on the phase.
 */
export function nextPollDelayMs(o: { now: number; dueAt: number; intervalMs: number; phaseMs: number }): number {
  const { now, dueAt, intervalMs, phaseMs } = o;
  if (!(intervalMs > 0)) return 0;
  const earliest = dueAt + intervalMs;
  const slot = phaseMs + Math.ceil((earliest - phaseMs) / intervalMs) * intervalMs;
  return Math.max(0, slot - now);
}

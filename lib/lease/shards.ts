/**
 * Clusters shared out over the replicas, as pure decisions (docs/ARCHITECTURE.md, "Replicas"). Each replica keeps a
 * membership Lease of its own (`<lease.name>-member-<identity>`, labelled with MEMBER_LABEL); the live members are the
 * membership Leases held and not run out, by our own clock (lib/lease/election.ts's observations). With M live members
 * and N clusters a replica's share is ⌈N/M⌉ cluster Leases:
 *
 * - below its share it may take a free (released or run out) cluster Lease, one claim at a time so that concurrent
 *   elections of one replica never overshoot;
 * - at its share it takes none;
 * - above its share it hands one over (a release: no holder, a duration of one second), and the next only once that
 *   one has a new holder or a Lease duration has passed: one at a time, so that a change of membership moves only as
 *   many clusters as it must. Which one: the held cluster this replica prefers least (rendezvous hashing of identity
 *   and cluster), so that a replica never hands over a cluster it has just taken for one it holds longer.
 *
 * A replica takes nothing until it has seen the membership once after its own membership Lease was written and a
 * renewal period has passed: replicas that start together see each other before they claim, instead of one claiming
 * every cluster and then handing most of them back.
 */
import { expiresAt, type Observation } from "@/lib/lease/election";
import { fnv1a } from "@/lib/hash";

/** The label of the membership Leases; its value tells installations in one namespace apart (memberLabelValue). */
export const MEMBER_LABEL = "allocation-lens.io/members-of";

/** What a replica logs, after its Lease's name, when it hands a cluster over (operators and tests look for it). */
export const HANDED_OVER = "handed over (this replica holds more than its share)";

const DNS_LABEL_MAX = 63;
const NAME_MAX = 253;

const hex = (n: number) => n.toString(16).padStart(8, "0");

/** `text` as a DNS label's characters: lower case, runs of anything else as one `-`, no `-` at either end. */
function dnsPart(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "");
}

/**
 * The name of a replica's membership Lease: `<prefix>-member-<identity>`. An identity that is not already a lower-case
 * DNS label, or a name that would be too long, gets a hash of the identity instead of its tail, so that two identities
 * never share a name.
 */
export function memberLeaseName(prefix: string, identity: string): string {
  const base = `${prefix}-member-`;
  const clean = dnsPart(identity);
  if (clean === identity && base.length + clean.length <= NAME_MAX) return base + clean;
  const tag = hex(fnv1a(identity));
  const room = Math.max(0, NAME_MAX - base.length - tag.length - 1);
  const head = clean.slice(0, room).replace(/-+$/, "");
  return `${base}${head ? `${head}-` : ""}${tag}`;
}

/** The label value of one installation's membership Leases: its Lease prefix, or a hash of it when that is no label value. */
export function memberLabelValue(prefix: string): string {
  return prefix.length <= DNS_LABEL_MAX && /^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/.test(prefix) ? prefix : `h-${hex(fnv1a(prefix))}`;
}

/** A label selector for one installation's membership Leases. */
export function memberSelector(prefix: string): string {
  return `${MEMBER_LABEL}=${memberLabelValue(prefix)}`;
}

/**
 * The live members: the identities holding a membership Lease that has not run out (our clock: observed plus its
 * duration), sorted, with `me` always among them.
 */
export function liveMembers(observations: Iterable<Observation>, now: number, fallbackSeconds: number, me: string): string[] {
  const live = new Set<string>([me]);
  for (const o of observations) {
    const holder = o.record.holderIdentity;
    if (holder && now < expiresAt(o, fallbackSeconds)) live.add(holder);
  }
  return [...live].sort();
}

/** A replica's share of `clusters` among `members` live replicas: ⌈N/M⌉ (every cluster when it is alone). */
export function fairShare(clusters: number, members: number): number {
  return Math.ceil(clusters / Math.max(1, members));
}

/** How much `identity` prefers `cluster` (rendezvous hashing): higher is kept longer. */
export function preference(identity: string, cluster: string): number {
  return fnv1a(`${identity}\u0000${cluster}`);
}

/** The held cluster to hand over when above the share: the one `identity` prefers least; undefined at or below it. */
export function toHandOver(held: Iterable<string>, share: number, identity: string): string | undefined {
  const list = [...held];
  if (list.length <= share) return undefined;
  let least: string | undefined;
  let score = Infinity;
  for (const c of list) {
    const s = preference(identity, c);
    if (s < score || (s === score && least !== undefined && c < least)) {
      least = c;
      score = s;
    }
  }
  return least;
}

/** The last hand-over: which cluster and when (our clock). */
export interface HandOver {
  cluster: string;
  at: number;
}

/**
 * Whether another hand-over may start: none before, or the last one's cluster has a new holder (`holderOf` answers who
 * holds it now as this replica last read it; null when free), or a Lease duration has passed since.
 */
export function mayHandOver(last: HandOver | undefined, holderOf: (cluster: string) => string | null | undefined, me: string, now: number, durationMs: number): boolean {
  if (!last) return true;
  const holder = holderOf(last.cluster);
  return (holder !== null && holder !== undefined && holder !== me) || now - last.at >= durationMs;
}

/**
 * Whether the membership has settled for this replica: its own membership Lease was written at `joinedAt`, and a list of
 * the membership read at `listedAt` (both our clock, null before) came at least one renewal period after it.
 */
export function membershipSettled(joinedAt: number | null, listedAt: number | null, renewMs: number): boolean {
  return joinedAt !== null && listedAt !== null && listedAt - joinedAt >= renewMs;
}

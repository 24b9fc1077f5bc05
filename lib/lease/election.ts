/**
 * Leader election over a coordination.k8s.io/v1 Lease, as client-go's leaderelection package does it, as pure decisions:
 * given the Lease as last read (or none), when it was first seen in that state, the time and who we are, what to write.
 *
 * - No Lease: create it, holding it (`leaseTransitions` 0).
 * - Held by us: renew (`renewTime` now; `acquireTime` and `leaseTransitions` kept). "Us" is our identity at our address:
 *   the same identity at another address is another process (two replicas without POD_NAME on one host share the host
 *   name), and is waited for like any other holder.
 * - Held by another whose Lease has not run out: wait. It runs out `leaseDurationSeconds` after we first saw the Lease in
 *   its current state, by our own clock (client-go's observedTime): the holder's `renewTime` comes from another clock and
 *   is never compared with ours.
 * - Free (no holder: released) or run out: take it over (`acquireTime` now, `leaseTransitions` + 1 when the holder
 *   changes).
 *
 * The write is an update with the read `resourceVersion` (optimistic concurrency): when another replica wrote in between,
 * the API server answers 409 Conflict and nothing is written; the caller reads again. The holder's address (where the
 * other replicas ask it for the answers) is an annotation of the Lease.
 */

/** The annotation holding the address (`host:port`) at which the holder serves the other replicas. */
export const ADDRESS_ANNOTATION = "allocation-lens.io/address";

/** The fields of a Lease the election reads and writes (times as RFC 3339 with microseconds, as the API server has them). */
export interface LeaseRecord {
  holderIdentity: string | null;
  /** the holder's address, from ADDRESS_ANNOTATION */
  address: string | null;
  acquireTime: string | null;
  renewTime: string | null;
  leaseDurationSeconds: number | null;
  leaseTransitions: number;
  /** metadata.resourceVersion: the update's precondition */
  resourceVersion: string | null;
}

/** The Lease as we last read it, and when (our clock, ms) we first saw it in this state. */
export interface Observation {
  record: LeaseRecord;
  observedAt: number;
}

export interface Candidate {
  identity: string;
  address: string;
  durationSeconds: number;
}

export type Decision =
  /** no Lease yet: create it */
  | { action: "create"; record: LeaseRecord }
  /** ours: write it again with a new renewTime */
  | { action: "renew"; record: LeaseRecord }
  /** free or run out: write it with us as the holder */
  | { action: "take"; record: LeaseRecord; previous: string | null }
  /** another replica holds it until `expiresAt` (our clock) */
  | { action: "wait"; holder: string; address: string | null; expiresAt: number };

/** A time as Kubernetes' MicroTime writes it: `2026-12-01T13:05:00.123000Z`. */
export function microTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, ".$1000Z");
}

/** The state of the Lease as a comparable key: a new resourceVersion, or a new holder or renewal, is a change. */
function stateKey(r: LeaseRecord): string {
  return JSON.stringify([r.resourceVersion, r.holderIdentity, r.renewTime, r.leaseTransitions]);
}

/** The observation after reading `record` at `now`: its time is kept while the Lease is unchanged. */
export function observe(previous: Observation | undefined, record: LeaseRecord, now: number): Observation {
  if (previous && stateKey(previous.record) === stateKey(record)) return previous;
  return { record, observedAt: now };
}

/** When the observed Lease runs out (our clock); a Lease without a duration lasts `fallbackSeconds`. */
export function expiresAt(o: Observation, fallbackSeconds: number): number {
  return o.observedAt + (o.record.leaseDurationSeconds ?? fallbackSeconds) * 1000;
}

function held(me: Candidate, now: number, base: Partial<LeaseRecord>): LeaseRecord {
  const at = microTime(now);
  return {
    holderIdentity: me.identity,
    address: me.address,
    acquireTime: at,
    renewTime: at,
    leaseDurationSeconds: me.durationSeconds,
    leaseTransitions: 0,
    resourceVersion: null,
    ...base,
  };
}

/** What to do with the Lease as observed (undefined: there is none). */
export function decide(observation: Observation | undefined, now: number, me: Candidate): Decision {
  if (!observation) return { action: "create", record: held(me, now, {}) };
  const r = observation.record;
  const holder = r.holderIdentity || null;
  if (holder === me.identity && (!r.address || r.address === me.address)) {
    return {
      action: "renew",
      record: { ...r, address: me.address, renewTime: microTime(now), leaseDurationSeconds: me.durationSeconds, acquireTime: r.acquireTime ?? microTime(now) },
    };
  }
  const until = expiresAt(observation, me.durationSeconds);
  if (holder && now < until) return { action: "wait", holder, address: r.address, expiresAt: until };
  return {
    action: "take",
    previous: holder,
    record: held(me, now, { resourceVersion: r.resourceVersion, leaseTransitions: r.leaseTransitions + 1 }),
  };
}

/** Another process holds the Lease under our identity (another address): the identities must differ (POD_NAME). */
export function identityClash(r: LeaseRecord, me: Candidate): boolean {
  return r.holderIdentity === me.identity && r.address !== null && r.address !== me.address;
}

/**
 * The Lease given up by its holder on a clean stop, as client-go's ReleaseOnCancel writes it: no holder, a duration of one
 * second, so that another replica takes it at its next read instead of after the duration.
 */
export function release(r: LeaseRecord, me: Candidate, now: number): LeaseRecord | null {
  if (r.holderIdentity !== me.identity || identityClash(r, me)) return null;
  return { ...r, holderIdentity: null, address: null, renewTime: microTime(now), leaseDurationSeconds: 1 };
}

/**
 * Whether we still count as the holder: the last renewal the API server accepted (`renewedAt`, our clock) is less than
 * `renewDeadlineMs` old. A holder that cannot renew stops polling before its Lease runs out for the others, so that two
 * replicas never poll at once while the clocks run at the same rate.
 */
export function stillHolding(renewedAt: number | null, now: number, renewDeadlineMs: number): boolean {
  return renewedAt !== null && now - renewedAt < renewDeadlineMs;
}

/** client-go's renewDeadline from our settings: the duration less one renewal period. */
export function renewDeadlineMs(durationSeconds: number, renewSeconds: number): number {
  return (durationSeconds - renewSeconds) * 1000;
}

/** When to read the Lease next: a holder every renewal period; a waiting replica also right after the Lease runs out. */
export function nextReadIn(decision: Decision | undefined, now: number, renewSeconds: number): number {
  const period = renewSeconds * 1000;
  if (decision?.action === "wait") return Math.max(0, Math.min(period, decision.expiresAt - now + 1));
  return period;
}

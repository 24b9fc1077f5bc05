/**
 * Consistent hashing with bounded loads, modelled on buraksezer/consistent as the upstream TA configures it
 * (1061 partitions, replication factor 5, load 1.1, keyed by the target address only; docs/target-allocator.md).
 *
 * The hash is XXH64, as upstream's: placements are a real TA's (hashring.test.ts holds them to upstream's for one ring).
 * Differences from upstream, on purpose:
 * - ring points that collide are ordered by member name, so the ring is independent of member order;
 * - the average load is at least 1: upstream's `floor(partitions / members) * load` is 0 with more than 1061 members
 *   and buraksezer panics ("not enough room"); here the first 1061 members found on the ring get one partition each.
 *   A Target Allocator cannot build such a ring: `allocate` (strategies.ts) refuses it with RingCapacityError, as the
 *   allocator's process dies, and the demo's TAs crash-loop on it; this class still builds it, for what the analysis asks.
 */

export const PARTITION_COUNT = 1061;
export const REPLICATION_FACTOR = 5;
export const LOAD = 1.1;

/** buraksezer/consistent's message when a ring has more members than partitions (distributeWithLoad's panic). */
export const RING_PANIC = "not enough room to distribute partitions";

/** A ring of more members than PARTITION_COUNT: a real allocator panics building it. */
export class RingCapacityError extends Error {
  constructor(readonly members: number) {
    super(`${RING_PANIC}: a consistent-hashing ring of ${members} collectors (it holds at most ${PARTITION_COUNT})`);
  }
}

const encoder = new TextEncoder();

const MASK = (1n << 64n) - 1n;
const P1 = 0x9e3779b185ebca87n;
const P2 = 0xc2b2ae3d27d4eb4fn;
const P3 = 0x165667b19e3779f9n;
const P4 = 0x85ebca77c2b2ae63n;
const P5 = 0x27d4eb2f165667c5n;

const rotl = (x: bigint, r: bigint): bigint => ((x << r) | (x >> (64n - r))) & MASK;
const round = (acc: bigint, lane: bigint): bigint => (rotl((acc + lane * P2) & MASK, 31n) * P1) & MASK;
const mergeRound = (acc: bigint, v: bigint): bigint => ((((acc ^ round(0n, v)) * P1) & MASK) + P4) & MASK;

/** XXH64 (seed 0) of `bytes`, as a 64-bit unsigned BigInt. */
export function xxhash64(bytes: Uint8Array): bigint {
  const len = bytes.length;
  const view = new DataView(bytes.buffer, bytes.byteOffset, len);
  let i = 0;
  let h: bigint;
  if (len >= 32) {
    let v1 = (P1 + P2) & MASK;
    let v2 = P2;
    let v3 = 0n;
    let v4 = -P1 & MASK;
    for (; i + 32 <= len; i += 32) {
      v1 = round(v1, view.getBigUint64(i, true));
      v2 = round(v2, view.getBigUint64(i + 8, true));
      v3 = round(v3, view.getBigUint64(i + 16, true));
      v4 = round(v4, view.getBigUint64(i + 24, true));
    }
    h = (rotl(v1, 1n) + rotl(v2, 7n) + rotl(v3, 12n) + rotl(v4, 18n)) & MASK;
    h = mergeRound(mergeRound(mergeRound(mergeRound(h, v1), v2), v3), v4);
  } else h = P5;
  h = (h + BigInt(len)) & MASK;
  for (; i + 8 <= len; i += 8) {
    h ^= round(0n, view.getBigUint64(i, true));
    h = (rotl(h, 27n) * P1 + P4) & MASK;
  }
  if (i + 4 <= len) {
    h ^= (BigInt(view.getUint32(i, true)) * P1) & MASK;
    h = (rotl(h, 23n) * P2 + P3) & MASK;
    i += 4;
  }
  for (; i < len; i++) {
    h ^= (BigInt(bytes[i]) * P5) & MASK;
    h = (rotl(h, 11n) * P1) & MASK;
  }
  h ^= h >> 33n;
  h = (h * P2) & MASK;
  h ^= h >> 29n;
  h = (h * P3) & MASK;
  h ^= h >> 32n;
  return h;
}

/** XXH64 of a string's UTF-8 bytes. */
export function hashString(s: string): bigint {
  return xxhash64(encoder.encode(s));
}

function hashPartition(id: number): bigint {
  // the partition id as 8 little-endian bytes, as buraksezer hashes it
  const b = new Uint8Array(8);
  new DataView(b.buffer).setUint32(0, id, true);
  return xxhash64(b);
}
const PARTITION_HASHES: readonly bigint[] = Array.from({ length: PARTITION_COUNT }, (_, i) => hashPartition(i));

/** A ring over members; build once, then `locate` is O(1) through the partition table. */
export class HashRing {
  readonly members: readonly string[];
  /** partition id -> member index (-1 when there are no members) */
  private readonly owner: Int32Array;
  readonly averageLoad: number;

  constructor(members: readonly string[]) {
    this.members = [...new Set(members)].sort();
    const n = this.members.length;
    this.owner = new Int32Array(PARTITION_COUNT).fill(-1);
    this.averageLoad = n === 0 ? 0 : Math.max(1, Math.ceil(Math.floor(PARTITION_COUNT / n) * LOAD));
    if (n === 0) return;

    // Ring points: hash("<member><i>") for i < replication factor, sorted by (hash, member index).
    const m = n * REPLICATION_FACTOR;
    const hashes = new BigUint64Array(m);
    const who = new Int32Array(m);
    for (let j = 0; j < n; j++) {
      for (let r = 0; r < REPLICATION_FACTOR; r++) {
        hashes[j * REPLICATION_FACTOR + r] = hashString(this.members[j] + r);
        who[j * REPLICATION_FACTOR + r] = j;
      }
    }
    const order = Array.from({ length: m }, (_, i) => i).sort((a, b) => (hashes[a] < hashes[b] ? -1 : hashes[a] > hashes[b] ? 1 : who[a] - who[b]));
    const ringHash = BigUint64Array.from(order, (i) => hashes[i]);
    const ringWho = Int32Array.from(order, (i) => who[i]);

    // Bounded-load distribution: each partition goes to the first member clockwise from its hash with room left.
    const loads = new Int32Array(n);
    for (let p = 0; p < PARTITION_COUNT; p++) {
      let idx = lowerBound(ringHash, PARTITION_HASHES[p]);
      if (idx >= m) idx = 0;
      let chosen = -1;
      for (let step = 0; step < m; step++) {
        const j = ringWho[idx];
        if (loads[j] + 1 <= this.averageLoad) {
          chosen = j;
          break;
        }
        if (++idx >= m) idx = 0;
      }
      if (chosen < 0) chosen = ringWho[idx]; // unreachable: capacity n * averageLoad >= PARTITION_COUNT
      loads[chosen]++;
      this.owner[p] = chosen;
    }
  }

  /** The partition a key falls in: hash(key) mod 1061. */
  static partitionOf(key: string): number {
    return Number(hashString(key) % BigInt(PARTITION_COUNT));
  }

  /** The member owning `key` (a target address), or null when the ring has no members. */
  locate(key: string): string | null {
    const j = this.owner[HashRing.partitionOf(key)];
    return j < 0 ? null : this.members[j];
  }

  /** Partitions held per member (for tests and diagnostics). */
  partitionLoads(): Map<string, number> {
    const out = new Map<string, number>(this.members.map((m) => [m, 0]));
    for (const j of this.owner) if (j >= 0) out.set(this.members[j], out.get(this.members[j])! + 1);
    return out;
  }
}

function lowerBound(sorted: BigUint64Array, x: bigint): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid] < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * Consistent hashing with bounded loads, modelled on buraksezer/consistent as the upstream TA configures it
 * (1061 partitions, replication factor 5, load 1.1, keyed by the target address only; docs/target-allocator.md).
 *
 * Differences from upstream, on purpose:
 * - the hash is 32-bit MurmurHash3 (x86_32) instead of xxhash64, so placements are not byte-identical to a real TA;
 * - ring points that collide are ordered by member name, so the ring is independent of member order;
 * - the average load is at least 1: upstream's `floor(partitions / members) * load` is 0 with more than 1061 members
 *   and buraksezer panics ("not enough room"); here the first 1061 members found on the ring get one partition each.
 */

export const PARTITION_COUNT = 1061;
export const REPLICATION_FACTOR = 5;
export const LOAD = 1.1;

const encoder = new TextEncoder();
let scratch = new Uint8Array(256);

/** UTF-8 encode into the shared scratch buffer; returns the byte length. ASCII takes the fast path. */
function encode(s: string): number {
  if (s.length * 3 > scratch.length) scratch = new Uint8Array(s.length * 3);
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c > 0x7f) return encoder.encodeInto(s, scratch).written;
    scratch[i] = c;
  }
  return s.length;
}

/** MurmurHash3 x86_32 of bytes[0..len). */
export function murmur3(bytes: Uint8Array, len: number, seed = 0): number {
  let h = seed >>> 0;
  const nblocks = len & ~3;
  for (let i = 0; i < nblocks; i += 4) {
    let k = bytes[i] | (bytes[i + 1] << 8) | (bytes[i + 2] << 16) | (bytes[i + 3] << 24);
    k = Math.imul(k, 0xcc9e2d51);
    k = (k << 15) | (k >>> 17);
    k = Math.imul(k, 0x1b873593);
    h ^= k;
    h = (h << 13) | (h >>> 19);
    h = (Math.imul(h, 5) + 0xe6546b64) | 0;
  }
  let k = 0;
  switch (len & 3) {
    case 3:
      k ^= bytes[nblocks + 2] << 16;
    // falls through
    case 2:
      k ^= bytes[nblocks + 1] << 8;
    // falls through
    case 1:
      k ^= bytes[nblocks];
      k = Math.imul(k, 0xcc9e2d51);
      k = (k << 15) | (k >>> 17);
      k = Math.imul(k, 0x1b873593);
      h ^= k;
  }
  h ^= len;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** MurmurHash3 x86_32 of a string's UTF-8 bytes. */
export function hashString(s: string): number {
  return murmur3(scratch, encode(s));
}

function hashPartition(id: number): number {
  // 8-byte little-endian partition id, as buraksezer hashes it.
  const b = new Uint8Array(8);
  new DataView(b.buffer).setUint32(0, id, true);
  return murmur3(b, 8);
}
const PARTITION_HASHES: Uint32Array = Uint32Array.from({ length: PARTITION_COUNT }, (_, i) => hashPartition(i));

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
    const hashes = new Float64Array(m);
    const who = new Int32Array(m);
    for (let j = 0; j < n; j++) {
      for (let r = 0; r < REPLICATION_FACTOR; r++) {
        hashes[j * REPLICATION_FACTOR + r] = hashString(this.members[j] + r);
        who[j * REPLICATION_FACTOR + r] = j;
      }
    }
    const order = Array.from({ length: m }, (_, i) => i).sort((a, b) => hashes[a] - hashes[b] || who[a] - who[b]);
    const ringHash = Float64Array.from(order, (i) => hashes[i]);
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
    return hashString(key) % PARTITION_COUNT;
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

function lowerBound(sorted: Float64Array, x: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid] < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

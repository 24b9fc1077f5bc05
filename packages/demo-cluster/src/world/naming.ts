/** Unique, realistic names and addresses: EC2 node names, Kubernetes generated suffixes, node and pod IPs. */
import { K8S_ALPHABET } from "./constants";
import type { Rng } from "./rng";

/** A timestamp as Kubernetes writes one (metav1.Time: RFC 3339 in whole seconds, UTC). */
export const iso = (ms: number): string => new Date(Math.floor(ms / 1000) * 1000).toISOString().replace(".000Z", "Z");

/** EC2's private DNS name for an address: 10.0.1.23 -> ip-10-0-1-23.ec2.internal. */
export const ec2NodeName = (ip: string): string => `ip-${ip.replaceAll(".", "-")}.ec2.internal`;

/** Hands out names that were never handed out before (also after the object is gone, as a real cluster practically does). */
export class NameRegistry {
  private readonly used = new Set<string>();

  constructor(private readonly rng: Rng) {}

  /** `<prefix>-<length chars of the Kubernetes suffix alphabet>`, unique among every name this registry gave. */
  suffixed(prefix: string, length = 5): string {
    for (;;) {
      const name = `${prefix}-${this.rng.chars(K8S_ALPHABET, length)}`;
      if (this.claim(name)) return name;
    }
  }

  /** Reserve a fixed name; false when it is taken. */
  claim(name: string): boolean {
    if (this.used.has(name)) return false;
    this.used.add(name);
    return true;
  }

  /** A template hash as a ReplicaSet or ControllerRevision carries it (10 suffix characters). */
  templateHash(): string {
    return this.rng.chars(K8S_ALPHABET, 10);
  }
}

/**
 * Node addresses in 10.0.0.0/16, one /18 per zone (third octet zone*64 .. zone*64+63), drawn at random and never reused.
 * 10.0.0.0/24's first addresses and 10.0.250-255 stay free for the API server endpoints.
 */
export class NodeAddresses {
  private readonly used = new Set<string>(["10.0.0.1", "10.0.0.2"]);

  constructor(private readonly rng: Rng) {}

  allocate(zoneIndex: number): string {
    for (;;) {
      const ip = `10.0.${zoneIndex * 64 + this.rng.int(64)}.${this.rng.between(4, 254)}`;
      if (!this.used.has(ip)) {
        this.used.add(ip);
        return ip;
      }
    }
  }
}

/** Pod addresses from 100.64.0.0/10 (the EKS custom-networking range), sequential from a random start, never reused. */
export class PodAddresses {
  private next: number;
  private issued = 0;
  private static readonly SIZE = 1 << 22;

  constructor(rng: Rng) {
    this.next = rng.int(1 << 16) << 4;
  }

  allocate(): string {
    for (;;) {
      if (++this.issued > PodAddresses.SIZE) throw new Error("pod address space exhausted");
      const n = this.next;
      this.next = (this.next + 1) % PodAddresses.SIZE;
      const last = n & 0xff;
      if (last === 0 || last === 255) continue;
      return `100.${64 + (n >>> 16)}.${(n >>> 8) & 0xff}.${last}`;
    }
  }
}

/**
 * cyrb53, a fast 53-bit string hash (public domain, bryc), as an incremental hasher so a target's key can be computed over
 * its job and sorted labels without building the joined string.
 */
const DIGITS = Array.from("0123456789abcdef", (c) => c.charCodeAt(0));
function d(x: number, shift: number): number {
  return DIGITS[(x >>> shift) & 15];
}

export class Hasher {
  private h1: number;
  private h2: number;

  constructor(seed = 0) {
    this.h1 = 0xdeadbeef ^ seed;
    this.h2 = 0x41c6ce57 ^ seed;
  }

  /** Feed a string followed by a separator character that cannot occur in label names (0xff). */
  add(s: string): this {
    let h1 = this.h1;
    let h2 = this.h2;
    for (let i = 0; i < s.length; i++) {
      const ch = s.charCodeAt(i);
      h1 = Math.imul(h1 ^ ch, 2654435761);
      h2 = Math.imul(h2 ^ ch, 1597334677);
    }
    h1 = Math.imul(h1 ^ 0xff, 2654435761);
    h2 = Math.imul(h2 ^ 0xff, 1597334677);
    this.h1 = h1;
    this.h2 = h2;
    return this;
  }

  /** The 53-bit digest as 14 hex digits. */
  hex(): string {
    let h1 = this.h1;
    let h2 = this.h2;
    h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507);
    h1 ^= Math.imul(h2 ^ (h2 >>> 13), 3266489909);
    h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507);
    h2 ^= Math.imul(h1 ^ (h1 >>> 13), 3266489909);
    // = (2^32 * (h2 & 0x1fffff) + h1 >>> 0).toString(16).padStart(14, "0"), without the slow double-to-radix path
    const hi = h2 & 0x1fffff;
    return String.fromCharCode(
      d(hi, 20), d(hi, 16), d(hi, 12), d(hi, 8), d(hi, 4), d(hi, 0),
      d(h1, 28), d(h1, 24), d(h1, 20), d(h1, 16), d(h1, 12), d(h1, 8), d(h1, 4), d(h1, 0),
    );
  }
}

/** cyrb53 of one or more strings, as 14 hex digits. */
export function hashHex(...parts: string[]): string {
  const h = new Hasher();
  for (const p of parts) h.add(p);
  return h.hex();
}

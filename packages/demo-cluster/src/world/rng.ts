/** A seeded pseudo-random generator (mulberry32): the world is a pure function of its seed. */
export class Rng {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  /** A float in [0, 1). */
  next(): number {
    let t = (this.state = (this.state + 0x6d2b79f5) >>> 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** An integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }

  /** An integer in [min, max]. */
  between(min: number, max: number): number {
    return min + this.int(max - min + 1);
  }

  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)];
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  /** `length` characters drawn from `alphabet`. */
  chars(alphabet: string, length: number): string {
    let s = "";
    for (let i = 0; i < length; i++) s += alphabet[this.int(alphabet.length)];
    return s;
  }

  /** A new generator for a sub-stream, so adding draws in one part of the world does not shift another. */
  fork(salt: number): Rng {
    return new Rng((this.int(0x100000000) ^ Math.imul(salt + 1, 0x9e3779b1)) >>> 0);
  }
}

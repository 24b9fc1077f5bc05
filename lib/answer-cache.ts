/**
 * A bounded cache of computed answers (promises), so that N clients asking the same question at one poll cost one
 * computation: concurrent askers share the pending promise, later ones its value. At most `capacity` entries (the least
 * recently used goes), each for at most `ttlMs`; a rejected computation is not kept. Pure (the clock is passed in).
 */
export class AnswerCache<T> {
  private readonly entries = new Map<string, { value: Promise<T>; until: number }>();
  /** computations started (misses), for tests and metrics */
  computed = 0;

  constructor(
    readonly capacity: number,
    readonly ttlMs: number,
  ) {}

  get size(): number {
    return this.entries.size;
  }

  /** The answer under `key`, computed (and kept for `ttlMs`, default the cache's) when there is none or it expired. */
  get(key: string, now: number, compute: () => Promise<T>, ttlMs = this.ttlMs): Promise<T> {
    const hit = this.entries.get(key);
    if (hit && hit.until > now) {
      this.entries.delete(key); // re-inserted: most recently used last
      this.entries.set(key, hit);
      return hit.value;
    }
    if (hit) this.entries.delete(key);
    this.computed++;
    const value = Promise.resolve().then(compute);
    const entry = { value, until: now + ttlMs };
    this.entries.set(key, entry);
    value.catch(() => {
      if (this.entries.get(key) === entry) this.entries.delete(key);
    });
    while (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value!);
    return value;
  }

  /** The answer kept under `key`, expired or not, without computing anything or changing the order (undefined: none). */
  peek(key: string): Promise<T> | undefined {
    return this.entries.get(key)?.value;
  }

  /** Drops one entry (an answer that must not be kept). */
  forget(key: string): void {
    this.entries.delete(key);
  }

  clear(): void {
    this.entries.clear();
  }
}

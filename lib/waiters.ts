/**
 * Callers waiting for a value that does not exist yet (the first snapshot of a cluster), bounded in number and in time:
 * a wait that times out leaves the queue at once, and when `max` callers already wait the next one is refused on the spot
 * rather than queued. Every browser tab asks before the first poll has finished; without the bounds each of them would
 * park a resolver until the poll ends, however long that takes.
 */
export type WaitRefusal = "full" | "timeout";

export class WaitRefused extends Error {
  constructor(readonly reason: WaitRefusal) {
    super(reason === "full" ? "too many requests already wait for the first poll" : "the first poll has not finished yet");
    this.name = "WaitRefused";
  }
}

interface Waiter<T> {
  resolve: (value: T) => void;
  timer: ReturnType<typeof setTimeout>;
}

export class BoundedWaiters<T> {
  private readonly waiting = new Set<Waiter<T>>();

  constructor(readonly max: number) {}

  /** callers waiting now */
  get size(): number {
    return this.waiting.size;
  }

  /** The next value given to `release`, or a WaitRefused: `full` at once, `timeout` after `timeoutMs`. */
  wait(timeoutMs: number): Promise<T> {
    if (this.waiting.size >= this.max) return Promise.reject(new WaitRefused("full"));
    return new Promise<T>((resolve, reject) => {
      const waiter: Waiter<T> = {
        resolve,
        timer: setTimeout(() => {
          this.waiting.delete(waiter);
          reject(new WaitRefused("timeout"));
        }, timeoutMs),
      };
      this.waiting.add(waiter);
    });
  }

  /** Resolves every caller waiting now and empties the queue. */
  release(value: T): void {
    const all = [...this.waiting];
    this.waiting.clear();
    for (const w of all) {
      clearTimeout(w.timer);
      w.resolve(value);
    }
  }
}

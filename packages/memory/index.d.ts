/** What releaseMemory did: whether malloc_trim gave memory back, and how long both steps took (ms). */
export interface Released {
  trimmed: boolean;
  ms: number;
}
/**
 * A memory-reducing full garbage collection of the calling thread's V8 heap (synchronous: it pauses that thread), then
 * glibc's malloc_trim(0) over every arena of the process. Null without the addon (see unavailable()).
 */
export function releaseMemory(): Released | null;
/** Why the addon could not be loaded, or null when it is loaded. */
export function unavailable(): string | null;

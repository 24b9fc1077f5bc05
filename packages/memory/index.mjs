// The addon, or why it cannot be loaded (its compiled file missing: an image assembled by hand, say): the caller then goes
// on without it.
import { createRequire } from "node:module";

let addon = null;
let reason = null;
try {
  addon = createRequire(import.meta.url)("./build/Release/allocation_lens_memory.node");
} catch (e) {
  reason = `the native addon could not be loaded (${e instanceof Error ? e.message.split("\n")[0] : e}); run \`npm rebuild @allocation-lens/memory\``;
}

/**
 * A memory-reducing full collection of the calling thread's heap, then malloc_trim over the process' arenas. Returns what
 * was done, or null (with `unavailable()` saying why) without the addon.
 */
export function releaseMemory() {
  if (!addon) return null;
  const t = process.hrtime.bigint();
  addon.collectGarbage();
  const trimmed = addon.glibc ? addon.trimMalloc() : false;
  return { trimmed, ms: Number(process.hrtime.bigint() - t) / 1e6 };
}

/** Why the addon could not be loaded, or null when it is loaded. */
export const unavailable = () => reason;

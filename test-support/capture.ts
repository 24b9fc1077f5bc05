/**
 * Everything a test process prints while a test runs: each console call (as one line, its arguments joined) and, when
 * asked, every write to stdout and stderr, passed through as usual. For tests that search the output for what must never
 * be in it (a secret, a credential).
 */
import { vi } from "vitest";

export interface Captured {
  /** what was printed so far, one entry per console call or stream write */
  lines: string[];
  /** puts console and the streams back as they were */
  restore(): void;
}

export function captureOutput({ streams = false }: { streams?: boolean } = {}): Captured {
  const lines: string[] = [];
  const restore: (() => void)[] = [];
  for (const level of ["log", "info", "warn", "error", "debug"] as const) {
    const original = console[level];
    const spy = vi.spyOn(console, level).mockImplementation((...args: unknown[]) => {
      lines.push(args.map((a) => (typeof a === "string" ? a : (JSON.stringify(a) ?? String(a)))).join(" "));
      original(...args);
    });
    restore.push(() => spy.mockRestore());
  }
  if (streams) {
    for (const stream of [process.stdout, process.stderr]) {
      const original = stream.write.bind(stream);
      stream.write = ((chunk: unknown, ...rest: unknown[]) => {
        lines.push(typeof chunk === "string" ? chunk : Buffer.from(chunk as Uint8Array).toString("utf8"));
        return (original as (...a: unknown[]) => boolean)(chunk, ...rest);
      }) as typeof stream.write;
      restore.push(() => (stream.write = original));
    }
  }
  return { lines, restore: () => restore.splice(0).reverse().forEach((r) => r()) };
}

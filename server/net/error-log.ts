import "server-only";
/**
 * The server log of source errors: one line when a source's error changes (and one when it recovers), not one per poll.
 * This is where a SourceError's `detail` goes (the path of an unreadable file, the start of an error body), which answers
 * never carry. Details hold no secret value: no token, no key, nothing of /scrape_configs.
 */
import type { SourceError, SourceErrorInfo } from "@/lib/source-error";

type Log = (line: string) => void;

export class SourceErrorLog {
  private readonly last = new Map<string, string>();

  /** `sameError`: what makes two errors the same (default: kind, status and message) */
  constructor(
    private readonly log: Log = (line) => console.warn(line),
    private readonly sameError: (e: SourceErrorInfo) => string = (e) => `${e.kind} ${e.status ?? ""} ${e.message}`,
  ) {}

  /** `error` null: the source works (again). */
  note(source: string, error: (SourceErrorInfo & { detail?: string }) | SourceError | null): void {
    if (!error) {
      if (this.last.delete(source)) this.log(`allocation-lens: ${source}: recovered`);
      return;
    }
    const detail = (error as { detail?: string }).detail;
    const key = `${this.sameError(error)} ${detail ?? ""}`;
    if (this.last.get(source) === key) return;
    this.last.set(source, key);
    this.log(`allocation-lens: ${error.source}: ${error.kind}${error.status ? ` ${error.status}` : ""}: ${error.message}${detail ? ` (${detail})` : ""}`);
  }
}

/**
 * One job answer read as its bytes arrive (pure logic; the TA client feeds it the HTTP body's chunks).
 *
 * Every chunk goes into the scanner (lib/ta/scan.ts) at once and is then let go, so the common case holds one scanner's
 * state (the carry of one unit, the collector list, the kept targets), not the answer. When the scanner refuses a shape,
 * the general path (JSON.parse, then extractJobTargets) needs the whole answer. The choice made here:
 *
 * - Chunks are kept only until the scanner has seen the TAs' shape (the first entry's head, or `{}`) or `KEEP_LIMIT`
 *   bytes have been kept. Another serialiser or a pretty-printing proxy is refused at its first bytes, so its answers are
 *   still whole when they are refused: the general path reads them from the kept chunks, with no second request.
 * - A refusal after the chunks were let go (an odd entry deep in the answer) gives `lost`: the caller asks the TA for that
 *   answer once more, read whole (`keepAll`), and remembers for that TA that its answers do not scan, so that a TA whose
 *   answers are refused late does not cost two requests per answer for ever. With `keepAll` the chunks are kept and the
 *   scanner still reads them: an answer that scans is used as such (and the chunks dropped), so the TA goes back to
 *   streaming once its answers scan again (the caller decides when; server/ta/client.ts).
 */
import { JobTargetsScanner, type KeptValues } from "./scan";
import type { AssignedTarget, ExtractedJob } from "./extract";

/** Kept bytes of an answer whose shape the scanner has not seen yet; past this, the chunks are let go. */
export const KEEP_LIMIT = 64 * 1024;

export type JobAnswer =
  /** read by the scanner */
  | { kind: "scanned"; value: ExtractedJob }
  /** refused by the scanner; the whole answer, for the general path */
  | { kind: "whole"; body: Buffer }
  /** refused by the scanner after its bytes were let go: read the answer again, whole */
  | { kind: "lost" };

export class JobAnswerReader {
  private readonly scanner: JobTargetsScanner;
  private kept: Uint8Array[] | null = [];
  private keptBytes = 0;

  /**
   * @param previous the collector list the scanner returned for the TA's last answer
   * @param keepAll keep every chunk until the end (the TA's answers were refused late before)
   * @param kept the kept labels' values by collector, shared by the answers of one reading (lib/ta/scan.ts)
   * @param earlier the job's targets in the TA's last reading (lib/ta/scan.ts)
   */
  constructor(
    previous: readonly string[],
    private readonly keepAll = false,
    kept: KeptValues | null = null,
    earlier: readonly AssignedTarget[] = [],
  ) {
    this.scanner = new JobTargetsScanner(previous, kept, earlier);
  }

  write(chunk: Uint8Array): void {
    if (this.kept) {
      this.kept.push(Buffer.from(chunk)); // a copy: the chunk may be a view of a buffer its reader reuses
      this.keptBytes += chunk.length;
    }
    this.scanner.feed(chunk);
    if (this.kept && !this.keepAll && !this.scanner.refused && (this.scanner.shapeSeen || this.keptBytes > KEEP_LIMIT)) {
      this.kept = null;
      this.keptBytes = 0;
    }
  }

  /** Bytes of the answer held now: kept chunks and the scanner's carry. */
  get retainedBytes(): number {
    return this.keptBytes + this.scanner.retainedBytes;
  }

  end(): JobAnswer {
    const value = this.scanner.end();
    const kept = this.kept;
    this.kept = null;
    this.keptBytes = 0;
    if (value) return { kind: "scanned", value };
    if (kept) return { kind: "whole", body: Buffer.concat(kept) };
    return { kind: "lost" };
  }
}

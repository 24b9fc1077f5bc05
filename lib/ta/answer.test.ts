/**
 * What a job answer read as it arrives holds, and what the general path gets when the scanner refuses: the whole answer
 * when the refusal comes before the TAs' shape was seen (nothing to ask again), `lost` when it comes after the chunks
 * were let go (the caller asks again, whole), the whole answer with `keepAll`.
 */
import { describe, expect, it } from "vitest";
import { JobAnswerReader, KEEP_LIMIT } from "./answer";

const entry = (i: number, items = "") => `"agent-${i}":{"_link":"/jobs/j/targets?collector_id=agent-${i}","targets":[${items}]}`;
const item = (address: string) => `{"targets":["${address}"],"labels":{"__meta_kubernetes_pod_node_name":"node-a"}}`;
/** a compact answer of `n` collectors; `odd` replaces the last one's items (e.g. with a shape the scanner refuses) */
const answer = (n: number, odd?: string) => Buffer.from(`{${Array.from({ length: n }, (_, i) => entry(i, i === n - 1 && odd !== undefined ? odd : i % 7 ? "" : item(`10.0.0.${i % 250}:9100`))).join(",")}}`);

/** `bytes` written in chunks of `size`; the most bytes the reader held after any chunk, and its end */
function read(bytes: Buffer, size: number, keepAll = false) {
  const reader = new JobAnswerReader([], keepAll);
  let retained = 0;
  for (let p = 0; p < bytes.length; p += size) {
    reader.write(bytes.subarray(p, p + size));
    retained = Math.max(retained, reader.retainedBytes);
  }
  return { end: reader.end(), retained };
}

describe("JobAnswerReader", () => {
  it("lets each chunk go once the scanner has read it and seen the TAs' shape", () => {
    const bytes = answer(5000);
    const { end, retained } = read(bytes, 16 * 1024);
    expect(end.kind).toBe("scanned");
    if (end.kind === "scanned") expect(end.value.collectors).toHaveLength(5000);
    expect(retained).toBeLessThan(16 * 1024 + 4096); // the first chunk, until its end has been scanned
    expect(read(bytes, 1000).retained).toBeLessThan(4096);
  });

  it("gives the whole answer to the general path when it is refused before the shape was seen (no second request)", () => {
    const pretty = Buffer.from(JSON.stringify(JSON.parse(answer(300).toString()), null, 2));
    for (const size of [1000, 1]) {
      const { end } = read(pretty, size); // one byte at a time: `{` and `\n` are not refused yet, and must be kept
      expect(end.kind === "whole" && end.body.equals(pretty), `chunks of ${size}`).toBe(true);
    }
  });

  it("is lost when refused after its chunks were let go, and whole when they are all kept (keepAll)", () => {
    const late = answer(3000, `{"targets":["10.0.0.1:80","10.0.0.2:80"],"labels":{}}`); // two addresses: not the scanner's
    expect(late.length).toBeGreaterThan(KEEP_LIMIT * 2);
    expect(read(late, 8192).end).toEqual({ kind: "lost" });
    const kept = read(late, 8192, true).end;
    expect(kept.kind === "whole" && kept.body.equals(late)).toBe(true);
    // kept, but read by the scanner when it can: then the chunks are dropped and the scanner's result used
    const sound = read(answer(3000), 8192, true);
    expect(sound.end.kind).toBe("scanned");
  });

  it("lets the chunks go after KEEP_LIMIT bytes even when the shape is not seen yet", () => {
    const name = "a".repeat(KEEP_LIMIT * 2); // a first name longer than the limit: the shape is not seen while it lasts
    const bytes = Buffer.from(`{"${name}":{"_link":"/l?c=${name}","targets":[]},"b":1}`);
    expect(read(bytes, 4096).end).toEqual({ kind: "lost" });
  });
});

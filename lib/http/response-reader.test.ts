/**
 * The response reader against answers built here, as Go's net/http and Node's write them (a declared length, or chunks
 * with extensions and trailers), fed whole, a byte at a time and cut at random: it hands over exactly the body, in order,
 * says where the answer ended, and refuses what it does not read (no length, 1xx, other codings, malformed chunks).
 */
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { HttpResponseReader, parseHead } from "./response-reader";

/** Feeds `bytes` cut at `cuts`; the body handed over, where the answer ended (-1: refused), and the reader. */
function read(bytes: Uint8Array, cuts: number[]) {
  const reader = new HttpResponseReader();
  const body: number[] = [];
  let from = 0;
  let ended = bytes.length;
  for (const cut of [...cuts, bytes.length].map((c) => Math.min(c, bytes.length)).sort((a, b) => a - b)) {
    const stop = reader.feed(bytes, from, cut, (b, s, e) => body.push(...b.subarray(s, e)));
    if (stop < 0) return { body, ended: -1, reader };
    if (reader.done) {
      ended = stop;
      break;
    }
    from = cut;
  }
  return { body, ended: reader.done ? ended : null, reader };
}

const text = (s: string) => Buffer.from(s, "latin1");

const answer = fc.record({
  status: fc.constantFrom(200, 201, 404, 500, 503),
  body: fc.uint8Array({ maxLength: 300 }),
  chunked: fc.boolean(),
  chunks: fc.array(fc.integer({ min: 1, max: 64 }), { maxLength: 8 }),
  extension: fc.boolean(),
  trailer: fc.boolean(),
  after: fc.uint8Array({ maxLength: 5 }),
});

type Answer = { status: number; body: Uint8Array; chunked: boolean; chunks: number[]; extension: boolean; trailer: boolean; after: Uint8Array };
function serialise(a: Answer) {
  const head = `HTTP/1.1 ${a.status} Whatever\r\nContent-Type: application/json\r\n`;
  if (!a.chunked) return Buffer.concat([text(`${head}Content-Length: ${a.body.length}\r\n\r\n`), a.body, a.after]);
  const parts: Buffer[] = [text(`${head}Transfer-Encoding: chunked\r\n\r\n`)];
  let at = 0;
  for (const size of [...a.chunks, a.body.length]) {
    if (at >= a.body.length) break;
    const piece = a.body.subarray(at, Math.min(a.body.length, at + size));
    at += piece.length;
    parts.push(text(`${piece.length.toString(16)}${a.extension ? ";x=1" : ""}\r\n`), Buffer.from(piece), text("\r\n"));
  }
  parts.push(text(`0\r\n${a.trailer ? "X-Trailer: 1\r\n" : ""}\r\n`), Buffer.from(a.after));
  return Buffer.concat(parts);
}

const cuts = fc.array(fc.nat({ max: 600 }), { maxLength: 8 });

describe("HttpResponseReader", () => {
  it("hands over the body and says where the answer ended, however the bytes are cut", () => {
    fc.assert(
      fc.property(answer, cuts, (a, at) => {
        const bytes = serialise(a);
        const end = bytes.length - a.after.length;
        for (const split of [at, Array.from({ length: bytes.length }, (_, i) => i)]) {
          const r = read(bytes, split);
          expect(r.reader.head?.status).toBe(a.status);
          expect(Buffer.from(r.body).equals(Buffer.from(a.body))).toBe(true);
          expect(r.ended).toBe(end);
        }
      }),
      { numRuns: 400 },
    );
  });

  it("is not done before the last byte of the answer", () => {
    fc.assert(
      fc.property(answer, fc.nat(), (a, n) => {
        const bytes = serialise(a);
        const end = bytes.length - a.after.length;
        const r = read(bytes.subarray(0, n % end), []);
        expect(r.reader.done).toBe(false);
      }),
      { numRuns: 300 },
    );
  });

  it("refuses chunks whose size or end is wrong, never handing over more than they declare", () => {
    const bad = [
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nabc\r\n0\r\n\r\n",
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabcd\r\n0\r\n\r\n",
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\nabc\r\n0\r\n\r\n",
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\nnot a header\r\n\r\n",
    ];
    for (const b of bad) {
      const r = read(text(b), []);
      expect(r.ended, b).toBe(-1);
      expect(r.reader.error, b).toBeTruthy();
      expect(r.body.length).toBeLessThanOrEqual(3);
    }
  });

  it("reads only heads it can frame, and says why it refuses the others", () => {
    expect(parseHead("HTTP/1.1 200 OK\r\nContent-Length: 12")).toMatchObject({ status: 200, contentLength: 12, keepAlive: true });
    expect(parseHead("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nConnection: close")).toMatchObject({ contentLength: null, keepAlive: false });
    expect(parseHead("HTTP/1.0 200 OK\r\nContent-Length: 1")).toMatchObject({ keepAlive: false });
    expect(parseHead("HTTP/1.1 204 No Content")).toMatchObject({ contentLength: 0 });
    expect(parseHead("HTTP/1.1 200 OK\r\nContent-Type: x")).toMatch(/no length/);
    expect(parseHead("HTTP/1.1 100 Continue")).toMatch(/100 answer/);
    expect(parseHead("HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked")).toMatch(/only chunked/);
    expect(parseHead("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Length: 3")).toMatch(/both/);
    expect(parseHead("HTTP/1.1 200 OK\r\nContent-Length: 3\r\nContent-Length: 4")).toMatch(/not one number/);
    expect(parseHead("HTTP/1.1 200 OK\r\nContent-Length: -1")).toMatch(/not one number/);
    expect(parseHead("HTTP/2 200")).toMatch(/not HTTP\/1/);
    expect(parseHead("HTTP/1.1 200 OK\r\nbad line")).toMatch(/malformed/);
  });

  it("refuses a head over its limit before it ends", () => {
    const reader = new HttpResponseReader(100);
    const stop = reader.feed(text(`HTTP/1.1 200 OK\r\nX: ${"y".repeat(200)}\r\n`), 0, 220, () => {});
    expect(stop).toBe(-1);
    expect(reader.error).toMatch(/over 100 bytes/);
  });
});

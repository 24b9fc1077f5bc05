/**
 * A minimal SPDY/3.1 codec, enough for the server side of Kubernetes port-forward (what kubectl speaks through its
 * `SPDY/3.1` upgrade, plain or tunnelled in a WebSocket): frame parsing from a byte stream, frame building, and header
 * blocks compressed with zlib and the SPDY/3 dictionary (one inflate context per connection for what the client sends,
 * one deflate context for what the server sends, each block ending with a sync flush).
 *
 * Frames: a control frame is `1 | version(15) | type(16) | flags(8) | length(24) | data`, a data frame is
 * `0 | stream id(31) | flags(8) | length(24) | data`.
 */
import zlib from "node:zlib";

export const SPDY_VERSION = 3;

export const FrameType = {
  SYN_STREAM: 1,
  SYN_REPLY: 2,
  RST_STREAM: 3,
  SETTINGS: 4,
  PING: 6,
  GOAWAY: 7,
  HEADERS: 8,
  WINDOW_UPDATE: 9,
} as const;

export const FLAG_FIN = 0x01;

/** RST_STREAM status codes used here */
export const RstStatus = { PROTOCOL_ERROR: 1, INVALID_STREAM: 2, REFUSED_STREAM: 3, CANCEL: 5 } as const;

export type Frame =
  | { kind: "data"; streamId: number; flags: number; data: Buffer }
  | { kind: "control"; type: number; flags: number; data: Buffer };

/** Headers as SPDY carries them: lower-case names, each value a NUL-separated list kept as one string. */
export type Headers = Record<string, string>;

const WORDS = [
  "options", "head", "post", "put", "delete", "trace", "accept", "accept-charset", "accept-encoding", "accept-language",
  "accept-ranges", "age", "allow", "authorization", "cache-control", "connection", "content-base", "content-encoding",
  "content-language", "content-length", "content-location", "content-md5", "content-range", "content-type", "date",
  "etag", "expect", "expires", "from", "host", "if-match", "if-modified-since", "if-none-match", "if-range",
  "if-unmodified-since", "last-modified", "location", "max-forwards", "pragma", "proxy-authenticate",
  "proxy-authorization", "range", "referer", "retry-after", "server", "te", "trailer", "transfer-encoding", "upgrade",
  "user-agent", "vary", "via", "warning", "www-authenticate", "method", "get", "status", "200 OK", "version", "HTTP/1.1",
  "url", "public", "set-cookie", "keep-alive", "origin",
];
const TAIL =
  "100101201202205206300302303304305306307402405406407408409410411412413414415416417502504505" +
  "203 Non-Authoritative Information204 No Content301 Moved Permanently400 Bad Request401 Unauthorized403 Forbidden" +
  "404 Not Found500 Internal Server Error501 Not Implemented503 Service UnavailableJan Feb Mar Apr May Jun Jul Aug " +
  "Sept Oct Nov Dec 00:00:00 Mon, Tue, Wed, Thu, Fri, Sat, Sun, GMTchunked,text/html,image/png,image/jpg,image/gif," +
  "application/xml,application/xhtml+xml,text/plain,text/javascript,publicprivatemax-age=gzip,deflate,sdch" +
  "charset=utf-8charset=iso-8859-1,utf-,*,enq=0.";

/** The SPDY/3 header compression dictionary: length-prefixed common words, then a run of common text. */
export const SPDY3_DICTIONARY: Buffer = Buffer.concat([
  ...WORDS.map((w) => {
    const b = Buffer.alloc(4 + w.length);
    b.writeUInt32BE(w.length, 0);
    b.write(w, 4, "latin1");
    return b;
  }),
  Buffer.from(TAIL, "latin1"),
]);

/** Splits a byte stream into frames; `push` returns every frame completed by the chunk. */
export class FrameParser {
  private buf: Buffer = Buffer.alloc(0);

  constructor(private readonly maxFrame = 16 * 1024 * 1024) {}

  push(chunk: Buffer): Frame[] {
    this.buf = this.buf.length ? Buffer.concat([this.buf, chunk]) : chunk;
    const frames: Frame[] = [];
    while (this.buf.length >= 8) {
      const length = this.buf.readUIntBE(5, 3);
      if (length > this.maxFrame) throw new Error(`SPDY frame of ${length} bytes is too large`);
      if (this.buf.length < 8 + length) break;
      const flags = this.buf[4];
      const data = this.buf.subarray(8, 8 + length);
      if (this.buf[0] & 0x80) {
        const version = this.buf.readUInt16BE(0) & 0x7fff;
        if (version !== SPDY_VERSION) throw new Error(`unsupported SPDY version ${version}`);
        frames.push({ kind: "control", type: this.buf.readUInt16BE(2), flags, data: Buffer.from(data) });
      } else {
        frames.push({ kind: "data", streamId: this.buf.readUInt32BE(0) & 0x7fffffff, flags, data: Buffer.from(data) });
      }
      this.buf = this.buf.subarray(8 + length);
    }
    return frames;
  }
}

export function controlFrame(type: number, flags: number, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt16BE(0x8000 | SPDY_VERSION, 0);
  head.writeUInt16BE(type, 2);
  head[4] = flags;
  head.writeUIntBE(data.length, 5, 3);
  return Buffer.concat([head, data]);
}

export function dataFrame(streamId: number, data: Buffer, fin = false): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(streamId & 0x7fffffff, 0);
  head[4] = fin ? FLAG_FIN : 0;
  head.writeUIntBE(data.length, 5, 3);
  return Buffer.concat([head, data]);
}

const u32 = (...values: number[]) => {
  const b = Buffer.alloc(4 * values.length);
  values.forEach((v, i) => b.writeUInt32BE(v >>> 0, i * 4));
  return b;
};

export const rstStreamFrame = (streamId: number, status: number) => controlFrame(FrameType.RST_STREAM, 0, u32(streamId & 0x7fffffff, status));
export const pingFrame = (id: number) => controlFrame(FrameType.PING, 0, u32(id));
export const goawayFrame = (lastStreamId: number, status = 0) => controlFrame(FrameType.GOAWAY, 0, u32(lastStreamId & 0x7fffffff, status));
export const windowUpdateFrame = (streamId: number, delta: number) => controlFrame(FrameType.WINDOW_UPDATE, 0, u32(streamId & 0x7fffffff, delta & 0x7fffffff));
/** SYN_REPLY with an already compressed header block */
export const synReplyFrame = (streamId: number, block: Buffer, fin = false) => controlFrame(FrameType.SYN_REPLY, fin ? FLAG_FIN : 0, Buffer.concat([u32(streamId & 0x7fffffff), block]));
/** SYN_STREAM with an already compressed header block (clients send it; here for tests) */
export const synStreamFrame = (streamId: number, block: Buffer, fin = false) =>
  controlFrame(FrameType.SYN_STREAM, fin ? FLAG_FIN : 0, Buffer.concat([u32(streamId & 0x7fffffff, 0), Buffer.from([0, 0]), block]));

/** The stream id of a SYN_STREAM, SYN_REPLY, RST_STREAM, HEADERS or WINDOW_UPDATE frame. */
export const frameStreamId = (f: Frame & { kind: "control" }) => f.data.readUInt32BE(0) & 0x7fffffff;

/** The compressed header block of a SYN_STREAM (after stream id, associated id, priority and slot). */
export const synStreamBlock = (f: Frame & { kind: "control" }) => f.data.subarray(10);

/** Uncompressed header block: count, then (name length, name, value length, value) pairs, all lengths 32-bit. */
export function encodeHeaderBlock(headers: Headers): Buffer {
  const parts: Buffer[] = [u32(Object.keys(headers).length)];
  for (const [name, value] of Object.entries(headers)) {
    const n = Buffer.from(name.toLowerCase(), "utf8");
    const v = Buffer.from(value, "utf8");
    parts.push(u32(n.length), n, u32(v.length), v);
  }
  return Buffer.concat(parts);
}

export function decodeHeaderBlock(raw: Buffer): Headers {
  const headers: Headers = {};
  let off = 0;
  const need = (n: number) => {
    if (off + n > raw.length) throw new Error("truncated SPDY header block");
  };
  need(4);
  const count = raw.readUInt32BE(off);
  off += 4;
  for (let i = 0; i < count; i++) {
    need(4);
    const nl = raw.readUInt32BE(off);
    off += 4;
    need(nl);
    const name = raw.toString("utf8", off, off + nl);
    off += nl;
    need(4);
    const vl = raw.readUInt32BE(off);
    off += 4;
    need(vl);
    headers[name] = raw.toString("utf8", off, off + vl);
    off += vl;
  }
  return headers;
}

/** One zlib stream of a connection, fed block by block (each ends with a sync flush); calls run one at a time. */
class ZStream {
  private chunks: Buffer[] = [];
  private failed: Error | undefined;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly z: zlib.Inflate | zlib.Deflate) {
    z.on("data", (c: Buffer) => this.chunks.push(c));
    z.on("error", (e: Error) => (this.failed = e));
  }

  run(input: Buffer): Promise<Buffer> {
    const next = this.queue.then(
      () =>
        new Promise<Buffer>((resolve, reject) => {
          if (this.failed) return reject(this.failed);
          const onError = (e: Error) => reject(e);
          this.z.once("error", onError);
          this.z.write(input);
          this.z.flush(zlib.constants.Z_SYNC_FLUSH, () => {
            this.z.off("error", onError);
            if (this.failed) return reject(this.failed);
            const out = Buffer.concat(this.chunks);
            this.chunks = [];
            resolve(out);
          });
        }),
    );
    this.queue = next.catch(() => undefined);
    return next;
  }

  close(): void {
    this.z.close();
  }
}

/** The header compression of one side of a connection: `compress` what it sends, `decompress` what it receives. */
export class HeaderCodec {
  private readonly inflate = new ZStream(zlib.createInflate({ dictionary: SPDY3_DICTIONARY }));
  private readonly deflate = new ZStream(zlib.createDeflate({ dictionary: SPDY3_DICTIONARY }));

  async compress(headers: Headers): Promise<Buffer> {
    return this.deflate.run(encodeHeaderBlock(headers));
  }

  async decompress(block: Buffer): Promise<Headers> {
    return decodeHeaderBlock(await this.inflate.run(block));
  }

  close(): void {
    this.inflate.close();
    this.deflate.close();
  }
}

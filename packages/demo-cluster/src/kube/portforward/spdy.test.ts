import { describe, expect, it } from "vitest";
import zlib from "node:zlib";
import {
  controlFrame,
  dataFrame,
  decodeHeaderBlock,
  encodeHeaderBlock,
  FLAG_FIN,
  FrameParser,
  FrameType,
  frameStreamId,
  HeaderCodec,
  pingFrame,
  rstStreamFrame,
  SPDY3_DICTIONARY,
  synReplyFrame,
  synStreamBlock,
  synStreamFrame,
} from "./spdy";

function adler32(b: Buffer): number {
  let a = 1;
  let c = 0;
  for (const x of b) {
    a = (a + x) % 65521;
    c = (c + a) % 65521;
  }
  return ((c << 16) | a) >>> 0;
}

describe("SPDY/3.1 codec", () => {
  it("has the SPDY/3 dictionary (length and the DICTID zlib puts in a header block)", () => {
    expect(SPDY3_DICTIONARY.length).toBe(1423);
    expect(adler32(SPDY3_DICTIONARY)).toBe(3821447106);
    // the dictionary id in a deflate header with the dictionary is its adler32
    const z = zlib.deflateSync(Buffer.from("x"), { dictionary: SPDY3_DICTIONARY });
    expect(z.readUInt32BE(2)).toBe(3821447106);
  });

  it("parses frames split at any byte and built back to back", () => {
    const frames = Buffer.concat([
      synStreamFrame(1, Buffer.from("abc")),
      dataFrame(1, Buffer.from("hello")),
      dataFrame(3, Buffer.alloc(0), true),
      pingFrame(7),
      rstStreamFrame(5, 5),
    ]);
    for (const cut of [1, 3, 8, 9, 17, frames.length - 1]) {
      const p = new FrameParser();
      const got = [...p.push(frames.subarray(0, cut)), ...p.push(frames.subarray(cut))];
      expect(got.length).toBe(5);
      const [syn, data, fin, ping, rst] = got;
      expect(syn).toMatchObject({ kind: "control", type: FrameType.SYN_STREAM, flags: 0 });
      expect(frameStreamId(syn as never)).toBe(1);
      expect(synStreamBlock(syn as never).toString()).toBe("abc");
      expect(data).toMatchObject({ kind: "data", streamId: 1, flags: 0 });
      expect((data as { data: Buffer }).data.toString()).toBe("hello");
      expect(fin).toMatchObject({ kind: "data", streamId: 3, flags: FLAG_FIN });
      expect(ping).toMatchObject({ kind: "control", type: FrameType.PING });
      expect((ping as { data: Buffer }).data.readUInt32BE(0)).toBe(7);
      expect(rst).toMatchObject({ kind: "control", type: FrameType.RST_STREAM });
      expect((rst as { data: Buffer }).data.readUInt32BE(4)).toBe(5);
    }
  });

  it("writes the control frame header as the spec lays it out", () => {
    const f = controlFrame(FrameType.SETTINGS, 1, Buffer.from([1, 2, 3]));
    expect([...f.subarray(0, 8)]).toEqual([0x80, 0x03, 0x00, 0x04, 0x01, 0x00, 0x00, 0x03]);
    const d = dataFrame(0x12345, Buffer.from([9]), true);
    expect([...d.subarray(0, 8)]).toEqual([0x00, 0x01, 0x23, 0x45, 0x01, 0x00, 0x00, 0x01]);
    expect(() => new FrameParser().push(Buffer.from([0x80, 0x02, 0, 1, 0, 0, 0, 0]))).toThrow(/version 2/);
  });

  it("round-trips header blocks through one compression context per direction, block after block", async () => {
    const client = new HeaderCodec();
    const server = new HeaderCodec();
    const blocks = [
      { streamtype: "error", port: "8080", requestid: "0" },
      { streamtype: "data", port: "8080", requestid: "0" },
      { streamtype: "error", port: "8443", requestid: "1" },
    ];
    for (const h of blocks) expect(await server.decompress(await client.compress(h))).toEqual(h);
    // and back: what the server compresses, the client reads
    expect(await client.decompress(await server.compress({}))).toEqual({});
    expect(await client.decompress(await server.compress({ status: "200" }))).toEqual({ status: "200" });
    // a block read out of its context fails (the inflate state is per connection)
    const lone = new HeaderCodec();
    const second = await new HeaderCodec().compress({ a: "b" });
    await expect(lone.decompress(Buffer.from(second.subarray(6)))).rejects.toThrow();
    client.close();
    server.close();
    lone.close();
  });

  it("decodes uncompressed blocks and refuses truncated ones", () => {
    const raw = encodeHeaderBlock({ StreamType: "data", port: "80" });
    expect(decodeHeaderBlock(raw)).toEqual({ streamtype: "data", port: "80" });
    expect(() => decodeHeaderBlock(raw.subarray(0, raw.length - 1))).toThrow(/truncated/);
    expect(synReplyFrame(3, Buffer.alloc(0)).readUInt32BE(8)).toBe(3);
  });
});

/**
 * Just enough of Kubernetes' protobuf wire format to read what client-go writes in it: client-go's generated clients
 * send built-in kinds as `application/vnd.kubernetes.protobuf` (the 4-byte `k8s\0` magic, then a runtime.Unknown
 * envelope with the TypeMeta and the object's bytes). The demo decodes the one built-in kind a Target Allocator writes,
 * the SelfSubjectAccessReview, and answers in JSON (which such a client accepts too).
 */

export const PROTOBUF = "application/vnd.kubernetes.protobuf";
const MAGIC = Buffer.from([0x6b, 0x38, 0x73, 0x00]);

export class ProtobufError extends Error {}

/** One field of a protobuf message: varints as numbers, length-delimited fields as bytes. */
interface Field {
  no: number;
  varint?: number;
  bytes?: Buffer;
}

function readVarint(buf: Buffer, at: number): [number, number] {
  let value = 0;
  let shift = 0;
  for (let i = at; i < buf.length; i++) {
    const b = buf[i];
    value += (b & 0x7f) * 2 ** shift;
    shift += 7;
    if (!(b & 0x80)) return [value, i + 1];
    if (shift > 63) break;
  }
  throw new ProtobufError("truncated varint");
}

export function fields(buf: Buffer): Field[] {
  const out: Field[] = [];
  let at = 0;
  while (at < buf.length) {
    const [key, next] = readVarint(buf, at);
    at = next;
    const no = Math.floor(key / 8);
    switch (key & 7) {
      case 0: {
        const [v, n] = readVarint(buf, at);
        out.push({ no, varint: v });
        at = n;
        break;
      }
      case 1:
        at += 8;
        break;
      case 2: {
        const [len, n] = readVarint(buf, at);
        if (n + len > buf.length) throw new ProtobufError("truncated field");
        out.push({ no, bytes: buf.subarray(n, n + len) });
        at = n + len;
        break;
      }
      case 5:
        at += 4;
        break;
      default:
        throw new ProtobufError(`unsupported wire type ${key & 7}`);
    }
  }
  if (at > buf.length) throw new ProtobufError("truncated message");
  return out;
}

const strings = (buf: Buffer, names: Record<number, string>): Record<string, string> => {
  const out: Record<string, string> = {};
  for (const f of fields(buf)) if (f.bytes && names[f.no]) out[names[f.no]] = f.bytes.toString("utf8");
  return out;
};

/** The TypeMeta and raw bytes of a `k8s\0`-framed runtime.Unknown. */
export function decodeEnvelope(body: Buffer): { apiVersion: string; kind: string; raw: Buffer } {
  if (body.length < 4 || !body.subarray(0, 4).equals(MAGIC)) throw new ProtobufError("the body does not start with the protobuf magic");
  let typeMeta = {} as Record<string, string>;
  let raw: Buffer = Buffer.alloc(0);
  for (const f of fields(body.subarray(4))) {
    if (f.no === 1 && f.bytes) typeMeta = strings(f.bytes, { 1: "apiVersion", 2: "kind" });
    if (f.no === 2 && f.bytes) raw = f.bytes;
  }
  return { apiVersion: typeMeta.apiVersion ?? "", kind: typeMeta.kind ?? "", raw };
}

const RESOURCE_ATTRIBUTES = { 1: "namespace", 2: "verb", 3: "group", 4: "version", 5: "resource", 6: "subresource", 7: "name" };
const NON_RESOURCE_ATTRIBUTES = { 1: "path", 2: "verb" };

/** A SelfSubjectAccessReview's spec from its protobuf bytes (the envelope's raw). */
export function decodeAccessReviewSpec(raw: Buffer): { resourceAttributes?: Record<string, string>; nonResourceAttributes?: Record<string, string> } {
  const spec: { resourceAttributes?: Record<string, string>; nonResourceAttributes?: Record<string, string> } = {};
  for (const f of fields(raw)) {
    if (f.no !== 2 || !f.bytes) continue;
    for (const s of fields(f.bytes)) {
      if (s.no === 1 && s.bytes) spec.resourceAttributes = strings(s.bytes, RESOURCE_ATTRIBUTES);
      if (s.no === 2 && s.bytes) spec.nonResourceAttributes = strings(s.bytes, NON_RESOURCE_ATTRIBUTES);
    }
  }
  return spec;
}

/** Encoders for tests: a length-delimited field, and a framed envelope. */
export function encodeField(no: number, value: Buffer | string): Buffer {
  const bytes = typeof value === "string" ? Buffer.from(value) : value;
  return Buffer.concat([varint(no * 8 + 2), varint(bytes.length), bytes]);
}

function varint(n: number): Buffer {
  const out: number[] = [];
  while (n > 0x7f) {
    out.push((n & 0x7f) | 0x80);
    n = Math.floor(n / 128);
  }
  out.push(n);
  return Buffer.from(out);
}

export function encodeEnvelope(apiVersion: string, kind: string, raw: Buffer): Buffer {
  return Buffer.concat([MAGIC, encodeField(1, Buffer.concat([encodeField(1, apiVersion), encodeField(2, kind)])), encodeField(2, raw)]);
}

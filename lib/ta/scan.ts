/**
 * The fast path of a poll: read one `/jobs/{job}/targets` answer straight from its bytes, without building a string of
 * it or a JavaScript object for each of its entries.
 *
 * At 5,000 collectors a job's answer is mostly `"<pod>":{"_link":"<prefix><pod>","targets":[]}` repeated 5,000 times
 * (docs/target-allocator.md), and the rest is discovered labels of which a poll keeps one (the node). JSON.parse materialises
 * all of it for the walk to drop it. TAs serialise compactly and always the same way (Go's encoding/json; the demo's
 * JSON.stringify), so this scanner follows that one shape over the bytes:
 *
 *   answer := '{' [entry (',' entry)*] '}' whitespace*
 *   entry  := '"' name '":{"_link":"' prefix name '","targets":[' [item (',' item)*] ']}'
 *   item   := '{"targets":[' string '],"labels":{' [string ':' string (',' string ':' string)*] '}}'
 *
 * where every entry's link is one prefix (learnt from the first entry) plus its own name, a name is a Kubernetes pod name
 * (checked once per collector list: an answer that repeats the previous answer's names byte for byte is not checked
 * again), and a string is JSON: control characters rejected, and any string with an escape checked and decoded by
 * JSON.parse. It keeps what `extractJobTargets` keeps (address, node, collector) and decodes nothing else.
 *
 * It is a fast path, not a parser: anything outside that shape (whitespace, another key order, a missing `_link`, a
 * collector name that is not a plain pod name, `null` targets, several addresses, an item without labels, a duplicate
 * collector, invalid JSON anywhere) returns null, and the caller takes the general path (JSON.parse, then
 * `extractJobTargets`), which also names the problem. When it returns a result, it is the one that path would return: a
 * differential property test (scan.test.ts) holds it to that, on generated answers and on corrupted ones.
 */
import { NODE_LABELS, ENDPOINTSLICE_TARGET_KIND, ENDPOINTSLICE_TARGET_NAME, targetNode } from "@allocation-lens/allocation/node";
import type { AssignedTarget, ExtractedJob } from "./extract";

const QUOTE = 0x22;
const COMMA = 0x2c;
const COLON = 0x3a;
const BACKSLASH = 0x5c;
const CLOSE_SQUARE = 0x5d;
const OPEN_CURLY = 0x7b;
const CLOSE_CURLY = 0x7d;

const view = (bytes: Uint8Array) => new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
const ascii = (s: string) => view(Uint8Array.from(s, (c) => c.charCodeAt(0)));
const AFTER_NAME = ascii(':{"_link":"');
const AFTER_LINK = ascii('","targets":[');
const ITEM_START = ascii('{"targets":[');
const ITEM_LABELS = ascii('],"labels":{');
/** The label names a poll keeps (the node's), as bytes. */
const KEPT_LABELS = [...NODE_LABELS, ENDPOINTSLICE_TARGET_KIND, ENDPOINTSLICE_TARGET_NAME].map((name) => ({ name, bytes: ascii(name) }));
const MIN_KEPT = Math.min(...KEPT_LABELS.map((l) => l.name.length));
const MAX_KEPT = Math.max(...KEPT_LABELS.map((l) => l.name.length));

const utf8 = new TextDecoder("utf-8");

/** Collector lists this scanner returned: their names were checked, so an answer that repeats them is not checked again. */
const CHECKED = new WeakSet<readonly string[]>();

/**
 * Whether `length` bytes of `a` at `pa` equal those of `b` at `pb`: four bytes at a time (a DataView load is one machine
 * load; a byte loop over a Uint8Array is about four times slower on these answers).
 */
function same(a: DataView, pa: number, b: DataView, pb: number, length: number): boolean {
  if (pa + length > a.byteLength || pb + length > b.byteLength) return false;
  let k = 0;
  for (; k + 4 <= length; k += 4) if (a.getUint32(pa + k) !== b.getUint32(pb + k)) return false;
  for (; k < length; k++) if (a.getUint8(pa + k) !== b.getUint8(pb + k)) return false;
  return true;
}

/** Whether `bytes` sit in `buf` at `p`. */
function at(buf: DataView, p: number, bytes: DataView): boolean {
  return same(buf, p, bytes, 0, bytes.byteLength);
}

/**
 * The bytes around each collector name of a checked list, in one block: `"<name>":{"_link":"` (head) and
 * `<name>","targets":[` (tail), so that an entry is checked with three word-wise comparisons (head, link prefix, tail).
 */
interface Templates {
  bytes: DataView;
  head: Uint32Array;
  tail: Uint32Array;
}
const TEMPLATES = new WeakMap<readonly string[], Templates>();

function templatesOf(names: readonly string[]): Templates {
  let t = TEMPLATES.get(names);
  if (t) return t;
  const size = names.reduce((s, n) => s + 2 * n.length + 2 + 11 + 13, 0);
  const bytes = new Uint8Array(size);
  const head = new Uint32Array(names.length + 1);
  const tail = new Uint32Array(names.length + 1);
  let o = 0;
  const put = (s: string) => {
    for (let k = 0; k < s.length; k++) bytes[o++] = s.charCodeAt(k);
  };
  names.forEach((n, i) => {
    head[i] = o;
    put(`"${n}":{"_link":"`);
    tail[i] = o;
    put(`${n}","targets":[`);
  });
  head[names.length] = tail[names.length] = o;
  t = { bytes: view(bytes), head, tail };
  TEMPLATES.set(names, t);
  return t;
}

/** Set by `stringEnd`: whether the string it just scanned has an escape (then JSON.parse checks and decodes it). */
let escaped = false;

/**
 * The index of the quote closing the JSON string whose content starts at `p`, or -1 when there is none or the string
 * holds a control character (invalid JSON). Sets `escaped`. Four bytes at a time while none of them is a quote, a
 * backslash or a control character (the bit tricks of "Bit Twiddling Hacks": a byte equal to / less than n).
 */
function stringEnd(dv: DataView, p: number): number {
  escaped = false;
  const length = dv.byteLength;
  for (;;) {
    while (p + 4 <= length) {
      const w = dv.getUint32(p);
      const q = w ^ 0x22222222;
      const b = w ^ 0x5c5c5c5c;
      if ((((q - 0x01010101) & ~q) | ((b - 0x01010101) & ~b) | ((w - 0x20202020) & ~w)) & 0x80808080) break;
      p += 4;
    }
    const end = Math.min(p + 4, length);
    if (p >= end) return -1;
    for (; p < end; p++) {
      const c = dv.getUint8(p);
      if (c === QUOTE) return p;
      if (c < 0x20) return -1;
      if (c === BACKSLASH) {
        escaped = true;
        p++; // the escaped byte, perhaps past `end`: the next round starts after it (JSON.parse checks the escape)
      }
    }
  }
}

/** The JSON string between the quotes at `open` and `close`; undefined when its escapes are not valid JSON. */
function decodeString(buf: Uint8Array, open: number, close: number, hasEscape: boolean): string | undefined {
  if (!hasEscape) return utf8.decode(buf.subarray(open + 1, close));
  try {
    return JSON.parse(utf8.decode(buf.subarray(open, close + 1))) as string;
  } catch {
    return undefined;
  }
}

/** Plain pod-name bytes ([A-Za-z0-9.-], starting alphanumeric, not all digits) from `p` to the closing quote; its index or -1. */
function plainNameEnd(buf: Uint8Array, p: number): number {
  let letters = false;
  for (let k = p; k < buf.length; k++) {
    const c = buf[k];
    if (c === QUOTE) return k > p && letters ? k : -1;
    const digit = c >= 0x30 && c <= 0x39;
    const letter = (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a);
    if (letter) letters = true;
    else if (!digit && ((c !== 0x2d && c !== 0x2e) || k === p)) return -1;
  }
  return -1;
}

/**
 * One job's answer as `extractJobTargets(JSON.parse(text))` would give it when that succeeds, or null when the bytes are
 * not in the compact shape above (the caller then takes the general path). `previous`: the collector list this scanner
 * returned for the last answer from the same TA; when this answer lists the same collectors in the same order, that very
 * array is returned.
 */
export function scanJobTargets(buf: Uint8Array, previous: readonly string[] = []): ExtractedJob | null {
  const dv = view(buf);
  const length = buf.length;
  if (buf[0] !== OPEN_CURLY) return null;
  let p = 1;
  const collectors: string[] = [];
  const targets: AssignedTarget[] = [];
  let following = previous.length > 0 && CHECKED.has(previous); // names so far are previous[0..i)
  const templates = following ? templatesOf(previous) : null;
  let seen: Set<string> | null = following ? null : new Set();
  let prefixStart = -1;
  let prefixLength = 0;

  if (buf[p] === CLOSE_CURLY) p++;
  else {
    for (let i = 0; ; i++) {
      let name: string | undefined;
      if (following && i < previous.length && prefixStart >= 0) {
        // the same collector as in the previous answer: "<name>":{"_link":"<prefix><name>","targets":[
        const t = templates!;
        const head = t.tail[i] - t.head[i];
        const tail = t.head[i + 1] - t.tail[i];
        if (
          same(dv, p, t.bytes, t.head[i], head) &&
          same(dv, p + head, dv, prefixStart, prefixLength) &&
          same(dv, p + head + prefixLength, t.bytes, t.tail[i], tail)
        ) {
          name = previous[i];
          collectors.push(name);
          p += head + prefixLength + tail;
        }
      }
      if (name === undefined) {
        // "<name>", checked
        if (buf[p] !== QUOTE) return null;
        const end = plainNameEnd(buf, p + 1);
        if (end < 0) return null;
        name = utf8.decode(buf.subarray(p + 1, end));
        if (following && (i >= previous.length || name !== previous[i])) {
          following = false;
          seen = new Set(collectors);
        }
        if (!following) {
          if (seen!.has(name)) return null;
          seen!.add(name);
        }
        collectors.push(name);
        p = end + 1;
        // :{"_link":"<prefix><name>","targets":[
        if (!at(dv, p, AFTER_NAME)) return null;
        p += AFTER_NAME.byteLength;
        if (prefixStart < 0) {
          const close = stringEnd(dv, p);
          if (close < 0 || escaped || close - p < name.length || !atAscii(buf, close - name.length, name)) return null;
          prefixStart = p;
          prefixLength = close - name.length - p;
        } else if (!same(dv, p, dv, prefixStart, prefixLength)) return null;
        p += prefixLength;
        if (!atAscii(buf, p, name)) return null;
        p += name.length;
        if (!at(dv, p, AFTER_LINK)) return null;
        p += AFTER_LINK.byteLength;
      }

      // items
      if (buf[p] !== CLOSE_SQUARE) {
        for (;;) {
          p = scanItem(buf, dv, p, name, targets);
          if (p < 0) return null;
          if (buf[p] === COMMA) p++;
          else break;
        }
      }
      // ]}
      if (buf[p] !== CLOSE_SQUARE || buf[p + 1] !== CLOSE_CURLY) return null;
      const next = buf[p + 2];
      p += 3;
      if (next === COMMA) continue;
      if (next === CLOSE_CURLY) break;
      return null;
    }
  }
  for (; p < length; p++) {
    const c = buf[p];
    if (c !== 0x0a && c !== 0x0d && c !== 0x20 && c !== 0x09) return null;
  }
  if (following && collectors.length === previous.length) return { collectors: previous as string[], targets };
  CHECKED.add(collectors);
  return { collectors, targets };
}

/** Whether the ASCII string `s` sits in `buf` at `p`. */
function atAscii(buf: Uint8Array, p: number, s: string): boolean {
  if (p + s.length > buf.length) return false;
  for (let k = 0; k < s.length; k++) if (buf[p + k] !== s.charCodeAt(k)) return false;
  return true;
}

/**
 * One item at `p`: `{"targets":["<address>"],"labels":{...}}`. Appends its target and returns the index after it, or -1.
 * Label values are decoded only for the node's labels; a repeated label counts with its last value, as in JSON.parse.
 */
function scanItem(buf: Uint8Array, dv: DataView, p: number, collector: string, into: AssignedTarget[]): number {
  if (!at(dv, p, ITEM_START)) return -1;
  p += ITEM_START.byteLength;
  if (buf[p] !== QUOTE) return -1;
  const addressEnd = stringEnd(dv, p + 1);
  if (addressEnd < 0) return -1;
  const address = decodeString(buf, p, addressEnd, escaped);
  if (address === undefined) return -1;
  p = addressEnd + 1;
  if (!at(dv, p, ITEM_LABELS)) return -1;
  p += ITEM_LABELS.byteLength;

  let kept: Record<string, string> | null = null;
  if (buf[p] !== CLOSE_CURLY) {
    for (;;) {
      // "key"
      if (buf[p] !== QUOTE) return -1;
      const keyEnd = stringEnd(dv, p + 1);
      if (keyEnd < 0) return -1;
      let keep: string | undefined;
      if (escaped) {
        const key = decodeString(buf, p, keyEnd, true);
        if (key === undefined) return -1;
        keep = KEPT_LABELS.find((l) => l.name === key)?.name;
      } else {
        const length = keyEnd - p - 1;
        if (length >= MIN_KEPT && length <= MAX_KEPT) for (const l of KEPT_LABELS) if (l.bytes.byteLength === length && at(dv, p + 1, l.bytes)) keep = l.name;
      }
      p = keyEnd + 1;
      // :"value"
      if (buf[p] !== COLON || buf[p + 1] !== QUOTE) return -1;
      p += 1;
      const valueEnd = stringEnd(dv, p + 1);
      if (valueEnd < 0) return -1;
      if (keep !== undefined || escaped) {
        const value = decodeString(buf, p, valueEnd, escaped); // an escaped value is checked even when dropped
        if (value === undefined) return -1;
        if (keep !== undefined) (kept ??= {})[keep] = value;
      }
      p = valueEnd + 1;
      if (buf[p] === COMMA) p++;
      else break;
    }
  }
  if (buf[p] !== CLOSE_CURLY || buf[p + 1] !== CLOSE_CURLY) return -1;
  into.push({ address, node: kept ? targetNode(kept) : null, collector });
  return p + 2;
}

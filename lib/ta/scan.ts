/**
 * The fast path of a poll: read one `/jobs/{job}/targets` answer straight from its bytes as they arrive, without building
 * a string of it or a JavaScript object for each of its entries, and without holding the answer.
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
 * collector, invalid JSON anywhere) is refused, and the caller takes the general path (JSON.parse, then
 * `extractJobTargets`), which also names the problem. When it gives a result, it is the one that path would give: a
 * differential property test (scan.test.ts) holds it to that, on generated answers and on corrupted ones, whole and fed
 * in random chunks.
 *
 * Streaming (`JobTargetsScanner`: feed(chunk) ... end()). The grammar above is read in units: the opening brace, an
 * entry's head (`"<name>":{"_link":"...","targets":[`), one item with the separator after it, an entry's end (`]}` and
 * the byte after it), the trailing whitespace. A unit is read from the chunk where it starts, in place; state (collector
 * list, targets, the link prefix) changes only when a whole unit has been read. A unit that runs past the chunk's end is
 * not refused: its bytes (the carry) are copied aside and it is read again, from the carry, once the carry has about
 * doubled (so a peer sending one byte at a time costs a linear number of re-reads, not a quadratic one); as soon as a
 * unit ends inside the new chunk, reading goes on in that chunk in place. What a scanner holds of an answer is therefore
 * one unit's bytes (at most about twice the longest entry head or item, `retainedBytes`), the link prefix, and the
 * results (collector list and kept targets), never the answer. `end()` reads what is left as the last bytes: a unit
 * that still runs past them is refused, as a whole-buffer scan of a cut answer is. `scanJobTargets(bytes)` is one feed
 * and end().
 *
 * Every read past the bytes at hand sets `short` instead of failing the unit for good, so a unit's outcome over a prefix
 * of the stream that holds all of it is the outcome over the whole answer: that is what makes any chunking give the
 * whole-buffer result.
 */
import { NODE_LABELS, ENDPOINTSLICE_TARGET_KIND, ENDPOINTSLICE_TARGET_NAME } from "@allocation-lens/allocation/node";
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
 * Set by every read past the end of the bytes at hand: the unit being read failed for want of bytes, not for its shape
 * (it is read again when more have arrived). Cleared before each unit.
 */
let short = false;

/** The byte at `p`, or -1 (setting `short`) past the end. */
function byteAt(buf: Uint8Array, p: number): number {
  if (p < buf.length) return buf[p];
  short = true;
  return -1;
}

/**
 * Whether `length` bytes of `a` at `pa` equal those of `b` at `pb`: eight bytes at a time, as doubles (a DataView load is
 * one machine load; a byte loop over a Uint8Array is about four times slower on these answers, and 32-bit words cost a
 * fifth more than doubles on a real poll's answers). Two doubles are equal exactly when their bits are, but for NaN (never
 * equal: the bytes are then taken as different, which only sends the caller down its slower path) and for +0 and -0 (all
 * zero bytes against seven zeros and 0x80): so `b`, or `a`, must hold no zero byte. Every caller's `b` is bytes this file
 * wrote or a string stringEnd accepted (no control character), or `a` is.
 */
function same(a: DataView, pa: number, b: DataView, pb: number, length: number): boolean {
  if (pa + length > a.byteLength || pb + length > b.byteLength) {
    short = true;
    return false;
  }
  let k = 0;
  for (; k + 8 <= length; k += 8) if (a.getFloat64(pa + k, true) !== b.getFloat64(pb + k, true)) return false;
  if (k + 4 <= length) {
    if (a.getUint32(pa + k, true) !== b.getUint32(pb + k, true)) return false;
    k += 4;
  }
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
 * The index of the quote closing the JSON string whose content starts at `p`, or -1 when there is none in the bytes at
 * hand (setting `short`) or the string holds a control character (invalid JSON). Sets `escaped`. Four bytes at a time
 * while none of them is a quote, a backslash or a control character (the bit tricks of "Bit Twiddling Hacks": a byte
 * equal to / less than n).
 */
function stringEnd(dv: DataView, p: number): number {
  escaped = false;
  const length = dv.byteLength;
  for (;;) {
    while (p + 4 <= length) {
      const w = dv.getUint32(p, true);
      const q = w ^ 0x22222222;
      const b = w ^ 0x5c5c5c5c;
      if ((((q - 0x01010101) & ~q) | ((b - 0x01010101) & ~b) | ((w - 0x20202020) & ~w)) & 0x80808080) break;
      p += 4;
    }
    const end = Math.min(p + 4, length);
    if (p >= end) {
      short = true;
      return -1;
    }
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
  short = true;
  return -1;
}

/**
 * Whether the characters of `s` sit in `buf` at `p`, each as one ASCII byte: a non-ASCII character never matches (a
 * byte of 0x80 or more is no character of its own in UTF-8), so `s` may be any decoded string.
 */
function atAscii(buf: Uint8Array, p: number, s: string): boolean {
  if (p + s.length > buf.length) {
    short = true;
    return false;
  }
  for (let k = 0; k < s.length; k++) {
    const b = buf[p + k];
    if (b >= 0x80 || b !== s.charCodeAt(k)) return false;
  }
  return true;
}

/** Where the scanner is in the grammar: the unit it reads next. */
const enum Unit {
  Open,
  Head,
  ItemOrEnd,
  Item,
  EntryEnd,
  Trail,
  Refused,
}

/** The carry starts this small and grows to the longest unit that crossed a chunk boundary (about twice it at most). */
const MIN_CARRY = 256;
/**
 * A carry holding an item is read again once it holds at least this many bytes: an item of a real answer is 1 to 3 kB,
 * and doubling from the few bytes that crossed a chunk's end took up to five tries (each a view and a read of the item)
 * per chunk. Other units (an entry's head, ~100 bytes) are tried as before, so a refused shape is still seen early.
 */
const MIN_ITEM_RETRY = 2048;

/**
 * One job's answer read chunk by chunk: `feed` each chunk as it arrives (the scanner keeps no reference to it), then
 * `end()` gives what `extractJobTargets(JSON.parse(text))` would give for the concatenated bytes when that succeeds, or
 * null when the bytes are not in the compact shape above (the caller then takes the general path). `previous`: the
 * collector list this scanner returned for the last answer from the same TA; when this answer lists the same collectors
 * in the same order, that very array is returned.
 */
export class JobTargetsScanner {
  private unit = Unit.Open;
  /** the collectors read, once the answer no longer follows `previous` (until then they are previous[0..count)) */
  private readonly collectors: string[] = [];
  /** how many collectors have been read */
  private count = 0;
  private readonly targets: AssignedTarget[] = [];
  /** the label keys of the items read so far, by position (items of one job carry the same keys in the same order) */
  private readonly keys: LabelKey[] = [];
  /** names so far are previous[0..count), and `collectors` is empty (nothing is copied while an answer repeats) */
  private following: boolean;
  private readonly templates: Templates | null;
  private seen: Set<string> | null;
  /** the link prefix, learnt from the first entry */
  private prefix: DataView | null = null;
  /** the collector of the entry being read */
  private name = "";
  /** bytes of a unit that ran past the end of a chunk: carry[0..carryLength) */
  private carry = new Uint8Array(0);
  private carryLength = 0;
  /** the carry is read again once it holds this many bytes (or at end()) */
  private retryAt = 0;
  /** the same job's targets in the TA's last reading, walked alongside this answer's items */
  private readonly earlier: Earlier;

  /**
   * @param previous the collector list of the TA's last answer (see above)
   * @param kept the kept labels' last values by collector, shared with the other answers of the same reading
   * @param earlier this job's targets as the TA's last reading gave them (see `earlierTarget`)
   */
  constructor(
    private readonly previous: readonly string[] = [],
    private readonly kept: KeptValues | null = null,
    earlier: readonly AssignedTarget[] = [],
  ) {
    this.earlier = { list: earlier, at: 0 };
    this.following = previous.length > 0 && CHECKED.has(previous);
    this.templates = this.following ? templatesOf(previous) : null;
    this.seen = this.following ? null : new Set();
  }

  /** Whether the bytes so far have been refused: the rest need not be fed (end() gives null). */
  get refused(): boolean {
    return this.unit === Unit.Refused;
  }

  /**
   * Whether the answer has shown the TAs' shape: its first entry's head was read (or it is `{}`). What else is refused
   * after this point is rare (a corrupted or unusual entry further on).
   */
  get shapeSeen(): boolean {
    return this.count > 0 || this.unit === Unit.Trail;
  }

  /** Bytes this scanner holds of the answer itself (the carry and the link prefix), whatever the answer's size. */
  get retainedBytes(): number {
    return this.carry.byteLength + (this.prefix?.byteLength ?? 0);
  }

  feed(chunk: Uint8Array): void {
    if (this.unit === Unit.Refused || chunk.length === 0) return;
    let from = 0;
    if (this.carryLength > 0) {
      from = this.feedCarry(chunk);
      if (from < 0) return; // the whole chunk went into the carry (or was refused there)
    }
    const stop = this.run(chunk, from, false);
    if (stop < chunk.length && !this.refused) this.keep(chunk, stop, chunk.length);
  }

  /** The answer's result, or null when it is not in the shape (or ends before it is complete). */
  end(): ExtractedJob | null {
    if (this.carryLength > 0 && this.unit !== Unit.Refused) {
      this.run(this.carry.subarray(0, this.carryLength), 0, true);
      this.carryLength = 0;
    }
    this.carry = new Uint8Array(0);
    if (this.unit !== Unit.Trail) {
      this.unit = Unit.Refused;
      return null;
    }
    const { previous, targets } = this;
    if (this.following && this.count === previous.length) return { collectors: previous as string[], targets };
    const collectors = this.following ? previous.slice(0, this.count) : this.collectors;
    CHECKED.add(collectors);
    return { collectors, targets };
  }

  /**
   * Appends `chunk` to the carry until the unit it holds is read (returns where reading goes on in `chunk`) or the chunk
   * is used up (-1). The carry is read again only once it has about doubled since its last try.
   */
  private feedCarry(chunk: Uint8Array): number {
    let used = 0;
    while (used < chunk.length) {
      const n = Math.min(chunk.length - used, Math.max(this.retryAt - this.carryLength, 1));
      const before = this.carryLength;
      this.keep(chunk, used, used + n, true);
      used += n;
      if (this.carryLength < this.retryAt) return -1;
      const stop = this.run(this.carry.subarray(0, this.carryLength), 0, false);
      if (this.unit === Unit.Refused) return -1;
      if (stop >= before) {
        // the unit that crossed into this chunk is read: go on in the chunk itself (carry[before..] is chunk[used - n..used))
        this.carryLength = 0;
        return used - n + (stop - before);
      }
      // still short: keep the unread bytes only, and try again once they have doubled
      this.carry.copyWithin(0, stop, this.carryLength);
      this.carryLength -= stop;
      this.retryAt = this.retryAfter(this.carryLength);
    }
    return -1;
  }

  /** Copies buf[from..to) into the carry (after what it holds when `append`), growing it as needed. */
  private keep(buf: Uint8Array, from: number, to: number, append = false): void {
    const base = append ? this.carryLength : 0;
    const length = base + to - from;
    if (length > this.carry.byteLength) {
      const grown = new Uint8Array(Math.max(MIN_CARRY, 2 * this.carry.byteLength, length));
      grown.set(this.carry.subarray(0, base));
      this.carry = grown;
    }
    this.carry.set(buf.subarray(from, to), base);
    this.carryLength = length;
    if (!append) this.retryAt = this.retryAfter(length);
  }

  /** When a carry of `length` bytes is read again: once it has about doubled (and, for an item, holds MIN_ITEM_RETRY). */
  private retryAfter(length: number): number {
    return Math.max(2 * length + 64, this.unit === Unit.Item ? MIN_ITEM_RETRY : 0);
  }

  /**
   * Reads units of `buf` from `p` until one runs past its end; returns where that unit starts (buf.length when every
   * byte was read). With `last`, a unit that runs past the end is refused (nothing more will come).
   */
  private run(buf: Uint8Array, p: number, last: boolean): number {
    const dv = view(buf);
    let unit = this.unit; // written back on return
    for (;;) {
      short = false;
      let next: number;
      switch (unit) {
        case Unit.Open: {
          const open = byteAt(buf, p);
          const close = open === OPEN_CURLY ? byteAt(buf, p + 1) : -1;
          if (close === CLOSE_CURLY) {
            next = p + 2;
            unit = Unit.Trail;
          } else if (open === OPEN_CURLY && close >= 0) {
            next = p + 1;
            unit = Unit.Head;
          } else next = -1;
          break;
        }
        case Unit.Head:
          p = this.repeated(buf, dv, p);
          next = this.head(buf, dv, p);
          if (next < 0) break;
          // most entries have no items: their end (`]},` or `]}}`) is read with the head when it is at hand
          if (next + 2 < buf.length && buf[next] === CLOSE_SQUARE && buf[next + 1] === CLOSE_CURLY && (buf[next + 2] === COMMA || buf[next + 2] === CLOSE_CURLY)) {
            if (buf[next + 2] === CLOSE_CURLY) unit = Unit.Trail;
            next += 3;
          } else unit = Unit.ItemOrEnd;
          break;
        case Unit.ItemOrEnd: {
          const c = byteAt(buf, p);
          next = c < 0 ? -1 : p;
          if (c >= 0) unit = c === CLOSE_SQUARE ? Unit.EntryEnd : Unit.Item;
          break;
        }
        case Unit.Item: {
          const before = this.targets.length;
          const at = this.earlier.at;
          next = scanItem(buf, dv, p, this.name, this.targets, this.keys, this.kept, this.earlier);
          const c = next < 0 ? -1 : byteAt(buf, next);
          if (c < 0) {
            this.targets.length = before; // the item is read again, whole, with more bytes
            this.earlier.at = at;
            next = -1;
          } else if (c === COMMA) next++;
          else unit = Unit.EntryEnd;
          break;
        }
        case Unit.EntryEnd: {
          const after = byteAt(buf, p) === CLOSE_SQUARE && byteAt(buf, p + 1) === CLOSE_CURLY ? byteAt(buf, p + 2) : -1;
          next = after === COMMA || after === CLOSE_CURLY ? p + 3 : -1;
          if (after === COMMA) unit = Unit.Head;
          else if (after === CLOSE_CURLY) unit = Unit.Trail;
          break;
        }
        case Unit.Trail:
          for (; p < buf.length; p++) {
            const c = buf[p];
            if (c !== 0x0a && c !== 0x0d && c !== 0x20 && c !== 0x09) {
              this.unit = Unit.Refused;
              return p;
            }
          }
          this.unit = unit;
          return p;
        case Unit.Refused:
          this.unit = unit;
          return p;
      }
      if (next < 0) {
        this.unit = !short || last ? Unit.Refused : unit;
        return p;
      }
      p = next;
    }
  }

  /**
   * The entries from `p` on that repeat the previous answer's, without items (most of an answer at 5,000 collectors), in
   * one loop: each is three word-wise comparisons and `]},`. Returns where the first other entry starts.
   */
  private repeated(buf: Uint8Array, dv: DataView, p: number): number {
    const { previous, prefix } = this;
    if (!this.following || !prefix) return p;
    const t = this.templates!;
    const prefixLength = prefix.byteLength;
    let i = this.count;
    for (; i < previous.length; i++) {
      const head = t.tail[i] - t.head[i];
      const end = p + head + prefixLength + t.head[i + 1] - t.tail[i];
      if (end + 3 > buf.length || buf[end] !== CLOSE_SQUARE || buf[end + 1] !== CLOSE_CURLY || buf[end + 2] !== COMMA) break;
      if (!same(dv, p, t.bytes, t.head[i], head) || !same(dv, p + head, prefix, 0, prefixLength) || !same(dv, p + head + prefixLength, t.bytes, t.tail[i], end - p - head - prefixLength)) break;
      p = end + 3;
    }
    this.count = i;
    return p;
  }

  /** An entry's head at `p`: `"<name>":{"_link":"<prefix><name>","targets":[`; the index after it, or -1. */
  private head(buf: Uint8Array, dv: DataView, p: number): number {
    const { previous, collectors } = this;
    const i = this.count;
    let name: string | undefined;
    let prefix = this.prefix;
    if (this.following && i < previous.length && prefix) {
      // the same collector as in the previous answer: "<name>":{"_link":"<prefix><name>","targets":[
      const t = this.templates!;
      const head = t.tail[i] - t.head[i];
      const tail = t.head[i + 1] - t.tail[i];
      const prefixLength = prefix.byteLength;
      if (same(dv, p, t.bytes, t.head[i], head) && same(dv, p + head, prefix, 0, prefixLength) && same(dv, p + head + prefixLength, t.bytes, t.tail[i], tail)) {
        name = previous[i];
        p += head + prefixLength + tail;
      }
    }
    if (name === undefined) {
      // "<name>", checked
      if (byteAt(buf, p) !== QUOTE) return -1;
      const end = plainNameEnd(buf, p + 1);
      if (end < 0) return -1;
      name = utf8.decode(buf.subarray(p + 1, end));
      if (this.following && (i >= previous.length || name !== previous[i])) {
        // no longer the previous list (a change of state that holds whatever this entry turns out to be)
        this.following = false;
        for (let k = 0; k < i; k++) collectors.push(previous[k]);
        this.seen = new Set(collectors);
      }
      if (!this.following && this.seen!.has(name)) return -1;
      p = end + 1;
      // :{"_link":"<prefix><name>","targets":[
      if (!at(dv, p, AFTER_NAME)) return -1;
      p += AFTER_NAME.byteLength;
      if (!prefix) {
        const close = stringEnd(dv, p);
        if (close < 0 || escaped || close - p < name.length || !atAscii(buf, close - name.length, name)) return -1;
        prefix = view(new Uint8Array(buf.subarray(p, close - name.length))); // a copy: the chunk may be a reused buffer
      } else if (!same(dv, p, prefix, 0, prefix.byteLength)) return -1;
      p += prefix.byteLength;
      if (!atAscii(buf, p, name)) return -1;
      p += name.length;
      if (!at(dv, p, AFTER_LINK)) return -1;
      p += AFTER_LINK.byteLength;
      if (!this.following) this.seen!.add(name);
    }
    this.prefix = prefix;
    if (!this.following) collectors.push(name);
    this.count++;
    this.name = name;
    return p;
  }
}

/**
 * One job's answer, whole: `JobTargetsScanner` fed once. The result `extractJobTargets(JSON.parse(text))` would give when
 * that succeeds, or null when the bytes are not in the compact shape above.
 */
export function scanJobTargets(buf: Uint8Array, previous: readonly string[] = [], kept: KeptValues | null = null, earlier: readonly AssignedTarget[] = []): ExtractedJob | null {
  const scanner = new JobTargetsScanner(previous, kept, earlier);
  scanner.feed(buf);
  return scanner.end();
}

/**
 * A label key seen at some position of an earlier item, with the bytes around it: `<key>":"` (its closing quote, the
 * colon, the value's opening quote). Its bytes were read by stringEnd and hold no escape: the same bytes at the same place
 * of a later item are that key, checked by one word-wise comparison instead of a string scan.
 */
interface LabelKey {
  bytes: DataView;
  /** its index in KEPT_LABELS, or -1 */
  keep: number;
}

/**
 * The kept labels' last values by collector, by kept label name, shared by the answers of one reading of a TA. Under
 * per-node a collector's targets are on its own node in every job, so its node label repeats byte for byte across the
 * reading's ~400 answers: compared with the string seen last, the value is not decoded again and the targets of a node
 * share one string, held until the next poll (a heap snapshot at 5,000 nodes had one per target before). Nothing else is
 * allocated: a copy of the bytes per value (an ArrayBuffer each) cost more than the decoding it saved.
 */
export type KeptValues = Map<string, Map<string, string>>;

/** The string of a kept label's value `buf[open..close]` (quotes excluded; no escape in it), from `memo` when it repeats. */
function keptValue(buf: Uint8Array, open: number, close: number, collector: string, keep: string, memo: KeptValues | null): string {
  let byKey = memo?.get(collector);
  const last = byKey?.get(keep);
  if (last !== undefined && last.length === close - open - 1 && atAscii(buf, open + 1, last)) return last;
  const value = utf8.decode(buf.subarray(open + 1, close));
  if (memo) {
    if (!byKey) memo.set(collector, (byKey = new Map()));
    byKey.set(keep, value);
  }
  return value;
}

const KEY_TAIL = [QUOTE, COLON, QUOTE];

/**
 * Where the current item's kept labels are, by index in KEPT_LABELS: the opening quote of the value's last occurrence
 * (-1: absent; ESCAPED: its value had an escape and was decoded into `escapedValues`) and its closing quote. Values are
 * decoded only once the item is read, and only the one that names the node: most items carry several node labels and
 * the EndpointSlice target's name, of which `targetNode` takes one.
 */
const keptOpen = new Int32Array(KEPT_LABELS.length);
const keptClose = new Int32Array(KEPT_LABELS.length);
const escapedValues: (string | undefined)[] = KEPT_LABELS.map(() => undefined);
const ESCAPED = -2;
const KIND = KEPT_LABELS.findIndex((l) => l.name === ENDPOINTSLICE_TARGET_KIND);
const NAME = KEPT_LABELS.findIndex((l) => l.name === ENDPOINTSLICE_TARGET_NAME);

/**
 * The value of kept label `k` of the item just read (see keptOpen); "" when absent. `expected` (the node of the target's
 * earlier self) is returned itself when the bytes are its, without looking the value up.
 */
function keptAt(buf: Uint8Array, k: number, collector: string, memo: KeptValues | null, expected: string | null = null): string {
  const open = keptOpen[k];
  if (open === ESCAPED) return escapedValues[k]!;
  if (open < 0 || keptClose[k] === open + 1) return "";
  if (expected !== null && expected.length === keptClose[k] - open - 1 && atAscii(buf, open + 1, expected)) return expected;
  return keptValue(buf, open, keptClose[k], collector, KEPT_LABELS[k].name, memo);
}

/** `targetNode` of the item just read, from its kept labels' places (see keptOpen); `expected` as for keptAt. */
function itemNode(buf: Uint8Array, collector: string, memo: KeptValues | null, expected: string | null): string | null {
  for (let k = 0; k < NODE_LABELS.length; k++) {
    const v = keptAt(buf, k, collector, memo, expected);
    if (v !== "") return v;
  }
  const kind = keptOpen[KIND];
  const isNode = kind === ESCAPED ? escapedValues[KIND] === "Node" : kind >= 0 && keptClose[KIND] === kind + 5 && atAscii(buf, kind + 1, "Node");
  if (!isNode) return null;
  const name = keptAt(buf, NAME, collector, memo, expected);
  return name === "" ? null : name;
}

/**
 * A job's targets from the TA's last reading and how far this answer's items have come in them. The TA lists collectors
 * in one order (its JSON object's keys, sorted), so a calm cluster's items meet their earlier selves in step.
 */
interface Earlier {
  list: readonly AssignedTarget[];
  at: number;
}

/**
 * The earlier target of `collector` whose address is the bytes `buf[open..close)` (no escape in them), or undefined. It
 * skips the earlier targets of collectors that sort before this one, and looks at all of this collector's, since a TA
 * may list one collector's targets in any order (the upstream TA walks a Go map). Nothing is allocated: when the item's
 * node is the earlier one too, the caller keeps the earlier object itself, and otherwise its address string.
 */
function earlierTarget(e: Earlier, collector: string, buf: Uint8Array, open: number, close: number): AssignedTarget | undefined {
  const { list } = e;
  let i = e.at;
  while (i < list.length && list[i].collector !== collector && list[i].collector < collector) i++;
  e.at = i;
  for (let j = i; j < list.length && list[j].collector === collector; j++) {
    const t = list[j];
    if (t.address.length === close - open && atAscii(buf, open, t.address)) {
      if (j === i) e.at = i + 1;
      return t;
    }
  }
  return undefined;
}

/**
 * One item at `p`: `{"targets":["<address>"],"labels":{...}}`. Appends its target and returns the index after it, or -1.
 * Label values are decoded only for the node (itemNode); a repeated label counts with its last value, as in JSON.parse.
 * `keys` remembers the label keys by position, across the items of one answer. A target equal to its earlier self (same
 * collector, address and node) is that earlier object, so that a calm cluster's poll allocates nothing per target.
 */
function scanItem(buf: Uint8Array, dv: DataView, p: number, collector: string, into: AssignedTarget[], keys: LabelKey[], memo: KeptValues | null, earlier: Earlier): number {
  if (!at(dv, p, ITEM_START)) return -1;
  p += ITEM_START.byteLength;
  if (byteAt(buf, p) !== QUOTE) return -1;
  const addressEnd = stringEnd(dv, p + 1);
  if (addressEnd < 0) return -1;
  const before = escaped ? undefined : earlierTarget(earlier, collector, buf, p + 1, addressEnd);
  const address = before ? before.address : decodeString(buf, p, addressEnd, escaped);
  if (address === undefined) return -1;
  p = addressEnd + 1;
  if (!at(dv, p, ITEM_LABELS)) return -1;
  p += ITEM_LABELS.byteLength;

  keptOpen.fill(-1);
  if (byteAt(buf, p) !== CLOSE_CURLY) {
    for (let i = 0; ; i++) {
      // "key"
      if (byteAt(buf, p) !== QUOTE) return -1;
      const known = keys[i];
      let keep = -1;
      if (known && p + 1 + known.bytes.byteLength <= buf.length && same(known.bytes, 0, dv, p + 1, known.bytes.byteLength)) {
        // `<key>":"`: p moves to the value's opening quote, the last of those bytes
        keep = known.keep;
        p += known.bytes.byteLength;
      } else {
        const keyEnd = stringEnd(dv, p + 1);
        if (keyEnd < 0) return -1;
        if (escaped) {
          const key = decodeString(buf, p, keyEnd, true);
          if (key === undefined) return -1;
          keep = KEPT_LABELS.findIndex((l) => l.name === key);
        } else {
          const length = keyEnd - p - 1;
          if (length >= MIN_KEPT && length <= MAX_KEPT) keep = KEPT_LABELS.findIndex((l) => l.bytes.byteLength === length && at(dv, p + 1, l.bytes));
          const bytes = new Uint8Array(length + KEY_TAIL.length);
          bytes.set(buf.subarray(p + 1, keyEnd));
          bytes.set(KEY_TAIL, length);
          keys[i] = { bytes: view(bytes), keep };
        }
        p = keyEnd + 1;
        // :"value"
        if (byteAt(buf, p) !== COLON || byteAt(buf, p + 1) !== QUOTE) return -1;
        p += 1;
      }
      const valueEnd = stringEnd(dv, p + 1);
      if (valueEnd < 0) return -1;
      if (escaped) {
        const value = decodeString(buf, p, valueEnd, true); // an escaped value is checked even when dropped
        if (value === undefined) return -1;
        if (keep >= 0) {
          keptOpen[keep] = ESCAPED;
          escapedValues[keep] = value;
        }
      } else if (keep >= 0) {
        keptOpen[keep] = p;
        keptClose[keep] = valueEnd;
      }
      p = valueEnd + 1;
      if (byteAt(buf, p) === COMMA) p++;
      else break;
    }
  }
  if (byteAt(buf, p) !== CLOSE_CURLY || byteAt(buf, p + 1) !== CLOSE_CURLY) return -1;
  const node = itemNode(buf, collector, memo, before ? before.node : null);
  into.push(before && before.node === node ? before : { address, node, collector });
  return p + 2;
}

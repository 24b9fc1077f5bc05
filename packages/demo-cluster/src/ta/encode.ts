/**
 * Go's URL and JSON encoding quirks, as the Target Allocator (Go, gin with UseRawPath) exhibits them on the wire.
 */
import type { Flavor } from "@allocation-lens/allocation/model";

const HEX = "0123456789ABCDEF";
const utf8 = new TextEncoder();
const utf8Decoder = new TextDecoder();

function escapeWith(s: string, keep: (c: number) => boolean, spacePlus: boolean): string {
  let out = "";
  for (const b of utf8.encode(s)) {
    if (keep(b)) out += String.fromCharCode(b);
    else if (spacePlus && b === 0x20) out += "+";
    else out += "%" + HEX[b >> 4] + HEX[b & 15];
  }
  return out;
}

const isUnreserved = (c: number) =>
  (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || c === 0x2d || c === 0x5f || c === 0x2e || c === 0x7e;
// In a path Go leaves $ & + , / : ; = @ unescaped (only ? of the reserved set is escaped).
const PATH_RESERVED = new Set([..."$&+,/:;=@"].map((c) => c.charCodeAt(0)));

/** Go's url.QueryEscape: what the TA (and a well-behaved client) puts into `/jobs/<escaped>/targets`. */
export const goQueryEscape = (s: string) => escapeWith(s, isUnreserved, true);

/** Go's url.PathEscape-for-setPath (encodePath mode). */
export const goPathEscape = (s: string) => escapeWith(s, (c) => isUnreserved(c) || PATH_RESERVED.has(c), false);

export class EscapeError extends Error {}

/** Go's unescape: `%XX` required to be valid; in query mode `+` is a space. Throws EscapeError like url.EscapeError. */
export function goUnescape(s: string, mode: "query" | "path"): string {
  if (!s.includes("%") && (mode === "path" || !s.includes("+"))) return s;
  const bytes: number[] = [];
  for (let i = 0; i < s.length; i++) {
    const ch = s[i];
    if (ch === "%") {
      const hex = s.slice(i + 1, i + 3);
      if (!/^[0-9a-fA-F]{2}$/.test(hex)) throw new EscapeError(`invalid URL escape ${JSON.stringify(s.slice(i, i + 3))}`);
      bytes.push(parseInt(hex, 16));
      i += 2;
    } else if (ch === "+" && mode === "query") bytes.push(0x20);
    else bytes.push(...utf8.encode(ch));
  }
  return utf8Decoder.decode(new Uint8Array(bytes));
}

/**
 * The path gin routes on with UseRawPath: Go sets URL.RawPath only when the raw path differs from the default escaping of
 * the decoded path (e.g. it contains `%2F`); otherwise gin routes on the decoded path. Returns the path to route on and
 * whether its segments still need unescaping once more (the handler calls url.QueryUnescape on the param either way).
 * Throws EscapeError for an invalid escape (Go rejects such a request line with 400).
 */
export function ginRoutingPath(rawPath: string): string {
  const decoded = goUnescape(rawPath, "path");
  return goPathEscape(decoded) === rawPath ? decoded : rawPath;
}

const GO_HTML_ESCAPES: Record<string, string> = { "<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029" };

/**
 * JSON as the flavor's encoder writes it, with the trailing newline of json.Encoder: upstream (goccy/go-json, like
 * encoding/json) escapes <, >, & and U+2028/9; the cloudwatch fork (jsoniter, EscapeHTML false) does not.
 */
export function goJson(value: unknown, flavor: Flavor): string {
  return goJsonFragment(JSON.stringify(value), flavor) + "\n";
}

/** Apply the flavor's escaping to an already JSON-encoded fragment (these characters only occur inside strings). */
export function goJsonFragment(json: string, flavor: Flavor): string {
  return flavor === "upstream" ? json.replace(/[<>&\u2028\u2029]/g, (c) => GO_HTML_ESCAPES[c]) : json;
}

/**
 * Which request header cannot go on the wire as it is. Node's own client refuses such a header (ERR_INVALID_CHAR); a client
 * that writes its request line by line (server/net/fast-http.ts) must refuse it itself: a line break in a value would end
 * the header and start another one of the value's choosing.
 */

/** A field name: RFC 9110 5.1, a token. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** A field value as Node's client accepts it: tab, visible ASCII, space, and bytes 0x80-0xff; no CR, LF, NUL or other control. */
const FIELD_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

/** Whether `value` can be sent as a header's value. */
export function isHeaderValue(value: string): boolean {
  return FIELD_VALUE.test(value);
}

/** The name of the first header whose name or value cannot be sent (never its value), or null when all can. */
export function unsendableHeader(headers: Record<string, string>): string | null {
  for (const [name, value] of Object.entries(headers)) {
    if (!TOKEN.test(name)) return JSON.stringify(name.slice(0, 40));
    if (!isHeaderValue(value)) return name;
  }
  return null;
}

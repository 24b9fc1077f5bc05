/**
 * The number of members of a JSON object, counted on the bytes without parsing them, and stopping as soon as it passes
 * `stopAbove`: a TA's /jobs that lists a million jobs is refused before JSON.parse builds a million objects. The count is
 * exact for valid JSON (commas inside strings and nested values are not counted); anything else is left to the parser
 * and its error (`null`: not an object).
 */
export function countObjectMembers(buf: Uint8Array, stopAbove = Infinity): number | null {
  let i = 0;
  const n = buf.length;
  while (i < n && (buf[i] === 0x20 || buf[i] === 0x0a || buf[i] === 0x0d || buf[i] === 0x09)) i++;
  if (buf[i] !== 0x7b) return null; // {
  i++;
  let depth = 1;
  let members = 0;
  let empty = true;
  for (; i < n; i++) {
    const c = buf[i];
    if (c === 0x22) {
      // a string: skip to its closing quote, over escapes
      if (depth === 1 && empty) {
        empty = false;
        members = 1;
      }
      for (i++; i < n && buf[i] !== 0x22; i++) if (buf[i] === 0x5c) i++;
    } else if (c === 0x7b || c === 0x5b) depth++;
    else if (c === 0x7d || c === 0x5d) {
      if (--depth === 0) return members;
    } else if (c === 0x2c && depth === 1) {
      if (++members > stopAbove) return members;
    }
  }
  return members;
}

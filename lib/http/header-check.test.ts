import { describe, expect, it } from "vitest";
import { isHeaderValue, unsendableHeader } from "@/lib/http/header-check";

describe("unsendableHeader", () => {
  it("passes what Node's client sends: visible ASCII, spaces, tabs and bytes 0x80-0xff", () => {
    expect(unsendableHeader({ Accept: "application/json", Authorization: "Bearer abc.DEF-123_~+/=", "X-T": "a\tb c\u00e9" })).toBeNull();
    expect(isHeaderValue("")).toBe(true);
  });

  it("names the header whose value holds a line break, NUL or another control character, never the value", () => {
    for (const bad of ["tok\r\nX-Evil: 1", "tok\nX", "tok\rX", "a\u0000b", "a\u007fb", "a\u0001b", "snow\u2603"]) {
      const r = unsendableHeader({ Accept: "application/json", Authorization: `Bearer ${bad}` });
      expect(r, JSON.stringify(bad)).toBe("Authorization");
    }
  });

  it("refuses a name that is not a token", () => {
    expect(unsendableHeader({ "Bad Name": "x" })).toBe('"Bad Name"');
    expect(unsendableHeader({ "X\r\nY": "x" })).toBe('"X\\r\\nY"');
    expect(unsendableHeader({ "": "x" })).toBe('""');
  });
});

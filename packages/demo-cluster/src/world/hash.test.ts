import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Hasher, hashHex } from "./hash";
import { targetKey } from "./target-key";

/** cyrb53's textbook finish, to check the table-based hex. */
function reference(parts: string[]): string {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (const s of parts) {
    for (const ch of [...Array.from(s, (c) => c.charCodeAt(0)), 0xff]) {
      h1 = Math.imul(h1 ^ ch, 2654435761);
      h2 = Math.imul(h2 ^ ch, 1597334677);
    }
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507);
  h1 ^= Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507);
  h2 ^= Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return (4294967296 * (2097151 & h2) + (h1 >>> 0)).toString(16).padStart(14, "0");
}

describe("hash", () => {
  it("is cyrb53 over separated parts, as 14 hex digits", () => {
    fc.assert(fc.property(fc.array(fc.string(), { maxLength: 5 }), (parts) => {
      const h = new Hasher();
      for (const p of parts) h.add(p);
      expect(h.hex()).toBe(reference(parts));
      expect(h.hex()).toMatch(/^[0-9a-f]{14}$/);
    }));
  });

  it("separates parts", () => {
    expect(hashHex("ab", "c")).not.toBe(hashHex("a", "bc"));
  });

  it("target keys ignore label order and see every name and value", () => {
    const a = { __address__: "1.2.3.4:80", __meta_kubernetes_pod_name: "p" };
    expect(targetKey("j", a)).toBe(targetKey("j", { __meta_kubernetes_pod_name: "p", __address__: "1.2.3.4:80" }));
    expect(targetKey("j", a)).not.toBe(targetKey("k", a));
    expect(targetKey("j", a)).not.toBe(targetKey("j", { ...a, __meta_kubernetes_pod_name: "q" }));
    expect(targetKey("j", a)).not.toBe(targetKey("j", { __address__: "1.2.3.4:80", __meta_kubernetes_pod_nam: "p" }));
  });
});

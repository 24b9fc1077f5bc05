import { describe, expect, it } from "vitest";
import { keyed } from "@/lib/views/keyed";

describe("keyed", () => {
  it("makes repeated natural keys unique", () => {
    expect(keyed(["a", "b", "a", "a"], (x) => x).map((k) => k.key)).toEqual(["a", "b", "a#2", "a#3"]);
  });
});

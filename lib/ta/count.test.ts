import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { countObjectMembers } from "./count";

const count = (text: string, stop?: number) => countObjectMembers(Buffer.from(text), stop);

describe("countObjectMembers", () => {
  it("counts the members of the top-level object only", () => {
    expect(count("{}")).toBe(0);
    expect(count(" \n{ } ")).toBe(0);
    expect(count('{"a":{"_link":"/jobs/a/targets"}}')).toBe(1);
    expect(count('{"a,b":{"x":[1,2,{"y":","}]},"c\\",":"d,e","f":null}')).toBe(3);
    expect(count("[1,2]")).toBeNull();
    expect(count("")).toBeNull();
  });

  it("stops as soon as the count passes the limit", () => {
    const many = `{${Array.from({ length: 1000 }, (_, i) => `"j${i}":{"_link":"x"}`).join(",")}}`;
    expect(count(many)).toBe(1000);
    expect(count(many, 10)).toBe(11);
  });

  it("agrees with JSON.parse on any object", () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue()), (o) => {
        expect(count(JSON.stringify(o))).toBe(Object.keys(o).length);
        expect(count(JSON.stringify(o, null, 2))).toBe(Object.keys(o).length);
      }),
    );
  });
});

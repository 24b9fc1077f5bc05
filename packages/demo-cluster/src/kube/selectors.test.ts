import { describe, expect, it } from "vitest";
import type { KubeObject } from "../store";
import { fieldSelectorPredicate, labelSelectorPredicate, parseFieldSelector, parseLabelSelector, SelectorError } from "./selectors";

const obj = (labels: Record<string, string>, extra: Partial<KubeObject> = {}): KubeObject => ({
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name: "p", namespace: "ns", labels },
  ...extra,
});
const matches = (sel: string, labels: Record<string, string>) => labelSelectorPredicate(sel)?.(obj(labels)) ?? true;

describe("label selectors", () => {
  it("parses equality, set-based and existence requirements", () => {
    expect(parseLabelSelector("a=b, c==d,e!=f")).toEqual([
      { key: "a", operator: "=", values: ["b"] },
      { key: "c", operator: "=", values: ["d"] },
      { key: "e", operator: "!=", values: ["f"] },
    ]);
    expect(parseLabelSelector("env in (prod, staging),tier notin (web),app,!legacy")).toEqual([
      { key: "env", operator: "in", values: ["prod", "staging"] },
      { key: "tier", operator: "notin", values: ["web"] },
      { key: "app", operator: "exists", values: [] },
      { key: "legacy", operator: "!", values: [] },
    ]);
    expect(parseLabelSelector("app.kubernetes.io/name=collector")).toEqual([
      { key: "app.kubernetes.io/name", operator: "=", values: ["collector"] },
    ]);
    expect(parseLabelSelector("a=")).toEqual([{ key: "a", operator: "=", values: [""] }]);
    expect(parseLabelSelector("")).toEqual([]);
  });

  it("matches as the apiserver does", () => {
    expect(matches("a=b", { a: "b" })).toBe(true);
    expect(matches("a=b", {})).toBe(false);
    expect(matches("a!=b", {})).toBe(true);
    expect(matches("a!=b", { a: "b" })).toBe(false);
    expect(matches("a in (x,y)", { a: "y" })).toBe(true);
    expect(matches("a in (x,y)", {})).toBe(false);
    expect(matches("a notin (x)", {})).toBe(true);
    expect(matches("a notin (x)", { a: "x" })).toBe(false);
    expect(matches("a", { a: "" })).toBe(true);
    expect(matches("!a", { a: "" })).toBe(false);
    expect(matches("!a", { b: "" })).toBe(true);
    expect(matches("a=b,c in (d)", { a: "b", c: "d" })).toBe(true);
    expect(matches("a=b,c in (d)", { a: "b", c: "e" })).toBe(false);
    expect(matches("n>3", { n: "4" })).toBe(true);
    expect(matches("n<3", { n: "4" })).toBe(false);
    expect(labelSelectorPredicate("")).toBeUndefined();
  });

  it("rejects malformed selectors", () => {
    for (const bad of ["a b", "a in x", "a in ()", "a in (x", "=b", "a=b,", "a==b==c", "-a=b", "a=b c", "a in (x y)"]) {
      expect(() => parseLabelSelector(bad), bad).toThrow(SelectorError);
    }
  });
});

describe("field selectors", () => {
  const pod = obj({}, { spec: { nodeName: "node-a" }, status: { phase: "Running" } });
  it("parses = == != with escapes", () => {
    expect(parseFieldSelector("metadata.name=a\\,b,spec.nodeName!=x")).toEqual([
      { field: "metadata.name", operator: "=", value: "a,b" },
      { field: "spec.nodeName", operator: "!=", value: "x" },
    ]);
  });
  it("filters pods by name, namespace and node", () => {
    expect(fieldSelectorPredicate("spec.nodeName=node-a", "pods")!(pod)).toBe(true);
    expect(fieldSelectorPredicate("spec.nodeName==node-b", "pods")!(pod)).toBe(false);
    expect(fieldSelectorPredicate("metadata.namespace=ns,metadata.name=p", "pods")!(pod)).toBe(true);
    expect(fieldSelectorPredicate("metadata.name!=p", "pods")!(pod)).toBe(false);
    expect(fieldSelectorPredicate("status.phase=Running", "pods")!(pod)).toBe(true);
  });
  it("rejects unsupported fields", () => {
    expect(() => fieldSelectorPredicate("spec.nodeName=x", "servicemonitors")).toThrow(/field label not supported: spec.nodeName/);
    expect(() => fieldSelectorPredicate("nonsense", "pods")).toThrow(SelectorError);
  });
});

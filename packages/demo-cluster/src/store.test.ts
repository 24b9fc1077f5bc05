import { describe, expect, it } from "vitest";
import { Store, type KubeObject } from "./store";

const pod = (namespace: string, name: string, v = 0): KubeObject => ({ apiVersion: "v1", kind: "Pod", metadata: { namespace, name, labels: { v: String(v) } } });

describe("Store.list by namespace", () => {
  it("is the namespace's objects as a filter of every object would give them, in the same order, through adds, updates and removals", () => {
    const store = new Store();
    const namespaces = ["a", "b", "c"];
    // a fixed walk of writes: adds, replacements (which keep an object's place) and removals (a re-add goes last)
    let seed = 7;
    const next = (n: number) => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0), (seed >>> 16) % n);
    for (let i = 0; i < 600; i++) {
      const ns = namespaces[next(3)];
      const name = `p${next(40)}`;
      if (next(4) === 0) store.remove("pods", ns, name);
      else store.upsert("pods", pod(ns, name, i));
      if (i % 50 === 0) store.update("pods", ns, name, (o) => ({ ...o, metadata: { ...o.metadata, labels: { v: "updated" } } }));
    }
    const all = store.list("pods");
    expect(all.length).toBeGreaterThan(0);
    for (const ns of [...namespaces, "none"]) {
      expect(store.list("pods", ns)).toEqual(all.filter((o) => o.metadata.namespace === ns));
    }
    expect(store.list("pods", "none")).toEqual([]);
  });

  it("holds the stored copies: what a namespaced list returns is what get returns", () => {
    const store = new Store();
    store.upsert("pods", pod("a", "x"));
    const replaced = store.upsert("pods", pod("a", "x", 2));
    expect(store.list("pods", "a")).toEqual([replaced]);
    expect(store.list("pods", "a")[0]).toBe(store.get("pods", "a", "x"));
    store.remove("pods", "a", "x");
    expect(store.list("pods", "a")).toEqual([]);
    // cluster-scoped objects: a list without a namespace
    store.upsert("nodes", { apiVersion: "v1", kind: "Node", metadata: { name: "n1" } });
    expect(store.list("nodes").map((n) => n.metadata.name)).toEqual(["n1"]);
  });
});

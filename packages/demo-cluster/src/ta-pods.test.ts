import { describe, expect, it } from "vitest";
import { Store } from "./store";
import { TaPods } from "./ta-pods";
import { generateWorld } from "./world/generate";

describe("TaPods", () => {
  const setup = () => {
    const world = generateWorld({ nodes: 3, seed: 4, flavor: "cloudwatch", nowMs: Date.now() });
    const store = new Store();
    for (const n of world.nodes) store.upsert("nodes", n);
    const pods = new TaPods(store, "cloudwatch", ["per-node", "cluster-scraper"]);
    pods.createAll();
    pods.setBackend("per-node", { host: "127.0.0.1", port: 1111, tls: true });
    return { store, pods };
  };

  it("creates one pod per role and maps (pod, containerPort) to the role's server", () => {
    const { store, pods } = setup();
    const name = pods.podName("per-node")!;
    expect(store.get("pods", "amazon-cloudwatch", name)).toBeDefined();
    expect(pods.backendFor("amazon-cloudwatch", name, 8443)).toEqual({ host: "127.0.0.1", port: 1111, tls: true });
    expect(pods.backendFor("amazon-cloudwatch", name, 8080)).toBeUndefined();
    expect(pods.backendFor("opentelemetry", name, 8443)).toBeUndefined();
    expect(pods.backendFor("amazon-cloudwatch", pods.podName("cluster-scraper")!, 8443)).toBeUndefined(); // no server set
  });

  it("replace: DELETED then ADDED under a new name; the old name no longer forwards", () => {
    const { store, pods } = setup();
    const events: string[] = [];
    store.subscribe((e) => events.push(`${e.type} ${e.object.metadata.name}`));
    const old = pods.podName("per-node")!;
    const { replacement } = pods.replace("per-node");
    expect(replacement).not.toBe(old);
    expect(events).toEqual([`DELETED ${old}`, `ADDED ${replacement}`]);
    expect(pods.backendFor("amazon-cloudwatch", old, 8443)).toBeUndefined();
    expect(pods.backendFor("amazon-cloudwatch", replacement, 8443)).toBeDefined();
    expect(pods.names()["per-node"]).toBe(replacement);
  });

  it("evict: a TA pod on a node that goes away is rescheduled on another node", () => {
    const { store, pods } = setup();
    const node = store.get("pods", "amazon-cloudwatch", pods.podName("cluster-scraper")!)!.spec!.nodeName as string;
    const moved = pods.evict(node);
    expect(moved).toContain(pods.podName("cluster-scraper"));
    for (const name of Object.values(pods.names())) expect(store.get("pods", "amazon-cloudwatch", name!)!.spec!.nodeName).not.toBe(node);
  });
});

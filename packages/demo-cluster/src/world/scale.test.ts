import { describe, expect, it } from "vitest";
import { ROLES, type Target } from "@allocation-lens/allocation/model";
import { discoverTargets } from "./discovery";
import { generateWorld } from "./generate";
import { podNodeName } from "./kube";
import { keepFor, targetNode } from "../../test/fixtures/world";

describe("a 5,000-node world", () => {
  it("has the expected scale, unique names, and discovers it fast", () => {
    const heap0 = process.memoryUsage().heapUsed;
    let t = performance.now();
    const w = generateWorld({ nodes: 5000, seed: 2026, flavor: "cloudwatch", nowMs: Date.UTC(2026, 10, 20) });
    const generateMs = performance.now() - t;
    expect(w.nodes).toHaveLength(5000);
    expect(new Set(w.nodes.map((n) => n.metadata.name)).size).toBe(5000);
    expect(new Set(w.pods.map((p) => p.metadata.name)).size).toBe(w.pods.length);
    const agents = w.pods.filter((p) => p.metadata.namespace === w.namespace && p.metadata.labels?.["app.kubernetes.io/instance"] === "amazon-cloudwatch.cloudwatch-agent");
    expect(new Set(agents.map(podNodeName)).size).toBe(5000);
    const monitors = w.serviceMonitors.length + w.podMonitors.length;
    expect(monitors - 3).toBeGreaterThan(370);
    expect(monitors - 3).toBeLessThan(410);

    const times: number[] = [];
    let jobs = new Map<string, Target[]>();
    for (let i = 0; i < 3; i++) {
      t = performance.now();
      jobs = discoverTargets({ ...w, staticJobs: [...w.staticJobs["per-node"], ...w.staticJobs["cluster-scraper"]], keep: () => true });
      times.push(performance.now() - t);
    }
    const targets = [...jobs.values()].flat();
    expect(targets.length).toBeGreaterThan(130_000);
    expect(targets.length).toBeLessThan(170_000);
    expect(jobs.size).toBeGreaterThan(380);
    expect(jobs.size).toBeLessThan(480);
    expect(new Set(targets.map((x) => x.key)).size).toBe(targets.length);
    // Speed is measured by `npm run bench`, not asserted here.
    expect(jobs.get("podMonitor/monitoring/node-exporter/0")).toHaveLength(5000);
    expect(jobs.get("kubelet")).toHaveLength(5000);
    expect(targets.filter((x) => targetNode(x.labels) === "")).toHaveLength(4);

    const perRole = ROLES.map((role) => {
      const m = discoverTargets({ ...w, staticJobs: w.staticJobs[role], keep: keepFor(role) });
      return `${role}: ${m.size} jobs, ${[...m.values()].flat().length} targets`;
    });
    const heapMb = Math.round((process.memoryUsage().heapUsed - heap0) / 1e6);
    console.log(
      `5000 nodes: ${w.pods.length} pods, ${w.serviceMonitors.length} ServiceMonitors, ${w.podMonitors.length} PodMonitors; ` +
        `${targets.length} targets in ${jobs.size} jobs; generate ${Math.round(generateMs)} ms; ` +
        `discover ${times.map(Math.round).join("/")} ms; heap +${heapMb} MB (world + targets); ${perRole.join("; ")}`,
    );
  });
});

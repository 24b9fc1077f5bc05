import { describe, expect, it } from "vitest";
import type { MonitorRef } from "./model";
import {
  CLUSTER_SCRAPER_VALUE, DEFAULT_SCRAPER_ANNOTATION, escapeJobId, jobName, keepsMonitor, monitorRole, parseJobName, unescapeJobId,
} from "./routing";

const mon = (annotations: Record<string, string>, kind: MonitorRef["kind"] = "ServiceMonitor"): MonitorRef => ({
  kind, namespace: "obs", name: "node-exporter", annotations, endpoints: 1,
});

describe("monitorRole (annotationRoleMatches)", () => {
  it("cluster-scraper only for the exact value", () => {
    expect(monitorRole({ [DEFAULT_SCRAPER_ANNOTATION]: CLUSTER_SCRAPER_VALUE })).toBe("cluster-scraper");
    expect(monitorRole({ [DEFAULT_SCRAPER_ANNOTATION]: "something-else" })).toBe("per-node");
    expect(monitorRole({ [DEFAULT_SCRAPER_ANNOTATION]: "Cluster-Scraper" })).toBe("per-node");
    expect(monitorRole({ [DEFAULT_SCRAPER_ANNOTATION]: " cluster-scraper" })).toBe("per-node");
    expect(monitorRole({ [DEFAULT_SCRAPER_ANNOTATION]: "" })).toBe("per-node");
    expect(monitorRole({})).toBe("per-node");
    expect(monitorRole(undefined)).toBe("per-node");
  });
  it("uses the configured key (the old draft key does not count by default)", () => {
    expect(monitorRole({ "cloudwatch.aws/scraper": "cluster-scraper" })).toBe("per-node");
    expect(monitorRole({ "cloudwatch.aws/scraper": "cluster-scraper" }, "cloudwatch.aws/scraper")).toBe("cluster-scraper");
  });
  it("ignores inherited properties", () => {
    expect(monitorRole({}, "constructor")).toBe("per-node");
  });
});

describe("keepsMonitor", () => {
  it("each monitor is kept by exactly one TA", () => {
    for (const m of [mon({}), mon({ [DEFAULT_SCRAPER_ANNOTATION]: "cluster-scraper" }, "PodMonitor")]) {
      expect(Number(keepsMonitor("per-node", m)) + Number(keepsMonitor("cluster-scraper", m))).toBe(1);
    }
    expect(keepsMonitor("cluster-scraper", mon({ [DEFAULT_SCRAPER_ANNOTATION]: "cluster-scraper" }))).toBe(true);
  });
  it("routing off keeps everything", () => {
    expect(keepsMonitor("cluster-scraper", mon({}), DEFAULT_SCRAPER_ANNOTATION, false)).toBe(true);
    expect(keepsMonitor("per-node", mon({ [DEFAULT_SCRAPER_ANNOTATION]: "cluster-scraper" }), DEFAULT_SCRAPER_ANNOTATION, false)).toBe(true);
  });
});

describe("job names", () => {
  it("builds and parses monitor jobs", () => {
    expect(jobName("ServiceMonitor", "obs", "node-exporter", 0)).toBe("serviceMonitor/obs/node-exporter/0");
    expect(jobName("PodMonitor", "a", "b", 12)).toBe("podMonitor/a/b/12");
    expect(parseJobName("serviceMonitor/obs/node-exporter/0")).toEqual({ kind: "ServiceMonitor", namespace: "obs", name: "node-exporter", index: 0 });
    expect(parseJobName("podMonitor/a/b/12")).toEqual({ kind: "PodMonitor", namespace: "a", name: "b", index: 12 });
  });
  it("returns null for static and malformed jobs", () => {
    for (const j of [
      "kubelet", "", "serviceMonitor/obs/x", "serviceMonitor/obs/x/0/extra", "serviceMonitor//x/0", "serviceMonitor/obs//0",
      "serviceMonitor/obs/x/-1", "serviceMonitor/obs/x/01", "serviceMonitor/obs/x/1e3", "probe/obs/x/0", "ServiceMonitor/obs/x/0",
      "serviceMonitor/obs/x/ 1", "serviceMonitor/obs/x/99999999999",
    ]) expect(parseJobName(j)).toBeNull();
  });
});

describe("escapeJobId (Go url.QueryEscape)", () => {
  it("escapes like Go", () => {
    expect(escapeJobId("serviceMonitor/obs/node-exporter/0")).toBe("serviceMonitor%2Fobs%2Fnode-exporter%2F0");
    expect(escapeJobId("a b")).toBe("a+b");
    expect(escapeJobId("x~y_z.w-v")).toBe("x~y_z.w-v");
    expect(escapeJobId("<script>\"'&%2F../")).toBe("%3Cscript%3E%22%27%26%252F..%2F");
    expect(escapeJobId("é")).toBe("%C3%A9");
    expect(escapeJobId("a+b")).toBe("a%2Bb");
  });
  it("round-trips", () => {
    for (const s of ["serviceMonitor/obs/x/0", "a b+c", "<b>%2F../", "日本 语", ""]) expect(unescapeJobId(escapeJobId(s))).toBe(s);
    expect(unescapeJobId("a%2fb")).toBe("a/b");
  });
});

import { describe, expect, it } from "vitest";
import type { MonitorRef } from "./model";
import {
  CLUSTER_SCRAPER_VALUE, DEFAULT_SCRAPER_ANNOTATION, EARLIER_SCRAPER_ANNOTATION, SCRAPER_ANNOTATIONS, escapeJobId, expectedRoute, jobName,
  keepsMonitor, monitorRole, parseJobName, recognisedScraperKeys, unescapeJobId,
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
  it("reads one key, the merged one by default (a TA of the earlier build reads cloudwatch.aws/scraper)", () => {
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

describe("recognisedScraperKeys", () => {
  it("both spellings, the merged one first, unless a key is configured", () => {
    expect(SCRAPER_ANNOTATIONS).toEqual(["cloudwatch.aws.amazon.com/scraper", "cloudwatch.aws/scraper"]);
    expect(recognisedScraperKeys(undefined)).toEqual(SCRAPER_ANNOTATIONS);
    expect(recognisedScraperKeys(null)).toEqual(SCRAPER_ANNOTATIONS);
    expect(recognisedScraperKeys("")).toEqual(SCRAPER_ANNOTATIONS);
    expect(recognisedScraperKeys(EARLIER_SCRAPER_ANNOTATION)).toEqual([EARLIER_SCRAPER_ANNOTATION]);
    expect(recognisedScraperKeys("example.com/role")).toEqual(["example.com/role"]);
  });
});

describe("expectedRoute (the dashboard's side: several keys at once)", () => {
  const both = SCRAPER_ANNOTATIONS;
  it("either spelling routes to the cluster-scraper and says which key it carries", () => {
    expect(expectedRoute({ [DEFAULT_SCRAPER_ANNOTATION]: CLUSTER_SCRAPER_VALUE }, both)).toEqual({
      role: "cluster-scraper",
      carried: [{ key: DEFAULT_SCRAPER_ANNOTATION, value: "cluster-scraper" }],
    });
    expect(expectedRoute({ [EARLIER_SCRAPER_ANNOTATION]: CLUSTER_SCRAPER_VALUE }, both)).toEqual({
      role: "cluster-scraper",
      carried: [{ key: EARLIER_SCRAPER_ANNOTATION, value: "cluster-scraper" }],
    });
  });
  it("no recognised key, or any other value, is per-node", () => {
    expect(expectedRoute({}, both)).toEqual({ role: "per-node", carried: [] });
    expect(expectedRoute(undefined, both)).toEqual({ role: "per-node", carried: [] });
    expect(expectedRoute({ "other/key": "cluster-scraper" }, both)).toEqual({ role: "per-node", carried: [] });
    expect(expectedRoute({ [EARLIER_SCRAPER_ANNOTATION]: "Cluster-Scraper" }, both).role).toBe("per-node");
  });
  it("a configured key alone: the other spelling is not recognised", () => {
    const m = { [DEFAULT_SCRAPER_ANNOTATION]: CLUSTER_SCRAPER_VALUE };
    expect(expectedRoute(m, [EARLIER_SCRAPER_ANNOTATION])).toEqual({ role: "per-node", carried: [] });
  });
  it("both keys: agreeing they route, disagreeing the role is unknown", () => {
    const agree = { [DEFAULT_SCRAPER_ANNOTATION]: CLUSTER_SCRAPER_VALUE, [EARLIER_SCRAPER_ANNOTATION]: CLUSTER_SCRAPER_VALUE };
    expect(expectedRoute(agree, both).role).toBe("cluster-scraper");
    expect(expectedRoute(agree, both).carried.map((a) => a.key)).toEqual([DEFAULT_SCRAPER_ANNOTATION, EARLIER_SCRAPER_ANNOTATION]);
    expect(expectedRoute({ [DEFAULT_SCRAPER_ANNOTATION]: "x", [EARLIER_SCRAPER_ANNOTATION]: "" }, both).role).toBe("per-node");
    const disagree = { [EARLIER_SCRAPER_ANNOTATION]: CLUSTER_SCRAPER_VALUE, [DEFAULT_SCRAPER_ANNOTATION]: "per-node" };
    expect(expectedRoute(disagree, both)).toEqual({
      role: null,
      carried: [
        { key: DEFAULT_SCRAPER_ANNOTATION, value: "per-node" },
        { key: EARLIER_SCRAPER_ANNOTATION, value: "cluster-scraper" },
      ],
    });
    // one key given twice is one key
    expect(expectedRoute(agree, [EARLIER_SCRAPER_ANNOTATION, EARLIER_SCRAPER_ANNOTATION]).carried).toHaveLength(1);
  });
  it("ignores inherited properties", () => {
    expect(expectedRoute({}, ["constructor"])).toEqual({ role: "per-node", carried: [] });
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

import { describe, expect, it } from "vitest";
import { clusterHref, clusterParam, keptParams } from "@/lib/views/cluster-link";

const clusters = [{ name: "prod-eu" }, { name: "prod-us" }, { name: "a&b" }];

describe("clusterParam", () => {
  it("is null for the first (default) cluster and the name for the others", () => {
    expect(clusterParam("prod-eu", clusters)).toBeNull();
    expect(clusterParam("prod-us", clusters)).toBe("prod-us");
  });
  it("is the name when no cluster is configured or the name is unknown", () => {
    expect(clusterParam("x", [])).toBe("x");
    expect(clusterParam("nope", clusters)).toBe("nope");
  });
});

describe("clusterHref", () => {
  it("drops the parameter for the default cluster and sets it for the others, escaped", () => {
    expect(clusterHref("?cluster=nope", "prod-eu", clusters)).toBe("?");
    expect(clusterHref("cluster=nope", "a&b", clusters)).toBe("?cluster=a%26b");
  });
  it("keeps the view's other parameters, in their order", () => {
    expect(clusterHref("?role=agent&cluster=nope&q=job%3Dx", "prod-us", clusters)).toBe("?role=agent&cluster=prod-us&q=job%3Dx");
    expect(clusterHref(new URLSearchParams("theme=dark&cluster=nope"), "prod-eu", clusters)).toBe("?theme=dark");
  });
});

describe("keptParams", () => {
  it("keeps the cluster and the theme and nothing else", () => {
    expect(keptParams("?role=agent&theme=dark&q=x&cluster=prod-us").toString()).toBe("cluster=prod-us&theme=dark");
    expect(keptParams(new URLSearchParams("node=n1")).toString()).toBe("");
  });
  it("drops empty values and escapes the kept ones", () => {
    expect(keptParams("cluster=&theme=light").toString()).toBe("theme=light");
    expect(keptParams("cluster=a%26b").toString()).toBe("cluster=a%26b");
  });
});

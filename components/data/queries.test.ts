/** The shared fetcher's errors, and polling that stops for a cluster the configuration does not have. */
import { afterEach, describe, expect, it, vi } from "vitest";
import { ApiFetchError, POLL_MS, getJson, isUnknownCluster, pollInterval } from "@/components/data/queries";

afterEach(() => vi.unstubAllGlobals());

const answering = (status: number, body: string) => vi.stubGlobal("fetch", vi.fn(async () => new Response(body, { status, headers: { "Content-Type": "application/json" } })));

describe("getJson", () => {
  it("keeps the API's error code and message", async () => {
    answering(404, JSON.stringify({ error: { code: "unknown_cluster", message: 'no cluster named "nope" in the configuration' } }));
    const e = await getJson("/api/v1/summary?cluster=nope").catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ApiFetchError);
    expect(e).toMatchObject({ status: 404, code: "unknown_cluster", message: 'no cluster named "nope" in the configuration' });
    expect(isUnknownCluster(e)).toBe(true);
  });

  it("has no code when the answer is not the API's", async () => {
    answering(502, "<html>bad gateway</html>");
    const e = await getJson("/api/v1/summary").catch((x: unknown) => x);
    expect(e).toMatchObject({ status: 502, code: undefined, message: "HTTP 502" });
    expect(isUnknownCluster(e)).toBe(false);
  });
});

describe("pollInterval", () => {
  it("stops polling only when the cluster is unknown", () => {
    expect(pollInterval({ state: { error: null } })).toBe(POLL_MS);
    expect(pollInterval({ state: { error: new ApiFetchError(503, "not ready", "not_ready") } })).toBe(POLL_MS);
    expect(pollInterval({ state: { error: new ApiFetchError(404, "no node", "unknown_node") } })).toBe(POLL_MS);
    expect(pollInterval({ state: { error: new ApiFetchError(404, "no cluster", "unknown_cluster") } })).toBe(false);
  });
});

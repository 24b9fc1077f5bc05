/**
 * /api/readyz is served without credentials: it says ready or not_ready and nothing else. The reason (cluster names,
 * startup errors such as a bad configuration) goes to the log, once.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

const runtime = vi.hoisted(() => ({ get: (): Promise<unknown> => Promise.reject(new Error("unset")) }));
vi.mock("@/server/runtime", () => ({ getRuntime: () => runtime.get() }));

import { GET } from "./route";

const poller = (latest: unknown) => ({ latest });
const logged = () => [...vi.mocked(console.error).mock.calls, ...vi.mocked(console.log).mock.calls].map((c) => c.join(" "));

beforeEach(() => {
  vi.spyOn(console, "error").mockImplementation(() => {});
  vi.spyOn(console, "log").mockImplementation(() => {});
});
afterEach(() => {
  vi.restoreAllMocks();
  delete (globalThis as Record<symbol, unknown>)[Symbol.for("allocation-lens.readiness-logged")];
});

describe("GET /api/readyz", () => {
  it("not ready: 503 {status: not_ready} only, the cluster names in the log once", async () => {
    runtime.get = async () => ({ pollers: new Map([["prod-eu-1", poller(undefined)], ["secret-cluster", poller({ at: 1 })]]) });
    for (let i = 0; i < 3; i++) {
      const r = await GET();
      expect(r.status).toBe(503);
      expect(await r.text()).toBe('{"status":"not_ready"}');
    }
    expect(logged()).toEqual(["allocation-lens: not ready: waiting for the first poll of prod-eu-1"]);
  });

  it("a runtime that failed to start (a bad configuration): 503 without the error, which is logged", async () => {
    runtime.get = () => Promise.reject(new Error("invalid configuration /etc/allocation-lens/config.yaml: auth.tokenFile ..."));
    const r = await GET();
    expect(r.status).toBe(503);
    const body = await r.text();
    expect(body).toBe('{"status":"not_ready"}');
    expect(logged().join("\n")).toContain("/etc/allocation-lens/config.yaml");
  });

  it("ready: 200 {status: ready} without the cluster list", async () => {
    runtime.get = async () => ({ pollers: new Map([["prod-eu-1", poller({ at: 1 })]]) });
    const r = await GET();
    expect(r.status).toBe(200);
    expect(await r.text()).toBe('{"status":"ready"}');
    expect(r.headers.get("cache-control")).toBe("no-store");
  });
});

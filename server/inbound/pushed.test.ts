/**
 * The server entry's own answers (server/inbound/pushed.ts) over real sockets: a node HTTP server whose handler is the
 * fast path, falling through to a marker answer where Next.js would take over. The runtime is a stand-in for the one
 * instrumentation creates (one cluster whose handle holds the poll's answer bytes); the access decision is the real one,
 * with a token file and the failure limit, and the peer stamped by server/security/peer.ts.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import zlib from "node:zlib";
import type { AddressInfo } from "node:net";
import { compilePolicy } from "@/lib/auth/decide";
import { resetSecurityPolicy, type SecurityPolicy } from "@/server/access";
import { runtimeIfSettled } from "@/server/inbound/runtime-now";
import { servePushed } from "@/server/inbound/pushed";
import { installPeerStamping } from "@/server/security/peer";
import type { Answer } from "@/server/poll/protocol";

const GOOD = "good-token-0123456789abcdefghijklmnopqrstuvwxyz";
const RUNTIME = Symbol.for("allocation-lens.runtime");
const BIG = new TextEncoder().encode(JSON.stringify({ nodes: Array.from({ length: 2000 }, (_, i) => ({ name: `node-${i}`, targets: i })) }));
const SMALL = new TextEncoder().encode(JSON.stringify({ cluster: "prod" }));
/** the worker's copy, made at another level than the server entry's own (6): sent as it is, never made again */
const PREMADE = new Uint8Array(zlib.gzipSync(BIG, { level: 1 }));

let dir: string;
let server: http.Server;
let port: number;
let asked: Array<{ route: string; search: string }>;
let answerFails = false;
let firstPollDone = true;

function policy(): SecurityPolicy {
  return {
    auth: compilePolicy({ mode: "token", trustedProxies: [], exemptPaths: ["/api/healthz"] }),
    tokenFile: path.join(dir, "tokens"),
    frameAncestors: ["'self'", "https://portal.example.com"],
    demo: false,
    failures: { maxFailures: 3, windowMs: 60_000 },
  };
}

interface Got {
  status: number;
  headers: http.IncomingHttpHeaders;
  raw: Buffer;
}

function call(p: string, headers: Record<string, string> = {}, from = "127.0.0.1"): Promise<Got> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: "127.0.0.1", port, path: p, headers, localAddress: from, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, raw: Buffer.concat(chunks) }));
    });
    req.on("error", reject);
    req.end();
  });
}

const auth = { Authorization: `Bearer ${GOOD}` };

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "al-pushed-"));
  fs.writeFileSync(path.join(dir, "tokens"), `${GOOD}\n`);
  installPeerStamping();
  const handle = {
    mode: { kind: "local" },
    onSnapshot: () => () => undefined,
    get latest() {
      return firstPollDone ? { polls: 1 } : undefined;
    },
    answer: async (q: { route: string; search: string }): Promise<Answer> => {
      asked.push(q);
      if (answerFails) throw new Error("worker gone");
      if (q.route === "collectors") return { status: 200, body: BIG, gzip: PREMADE };
      return { status: 200, body: q.route === "nodes" ? BIG : SMALL };
    },
  };
  (globalThis as Record<symbol, unknown>)[RUNTIME] = Promise.resolve({ config: { clusters: [{ name: "prod" }] }, pollers: new Map([["prod", handle]]) });
  await (globalThis as Record<symbol, Promise<unknown>>)[RUNTIME];
  runtimeIfSettled();
  server = http.createServer((req, res) => {
    void servePushed(req, res, "/lens").then((served) => {
      if (!served) res.writeHead(299, { "X-Next": "yes" }).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  port = (server.address() as AddressInfo).port;
  await vi.waitFor(() => expect(runtimeIfSettled()).not.toBeNull());
  // a request asks for its own answer only (the worker gzips the large ones of each poll itself)
  asked = [];
  resetSecurityPolicy(policy());
  expect((await call("/lens/api/v1/summary", auth)).status).toBe(200);
  expect(asked).toEqual([{ route: "summary", search: "" }]);
  resetSecurityPolicy();
});
afterAll(async () => {
  await new Promise((r) => server.close(r));
  delete (globalThis as Record<symbol, unknown>)[RUNTIME];
  fs.rmSync(dir, { recursive: true, force: true });
});
afterEach(() => {
  resetSecurityPolicy();
  answerFails = false;
  firstPollDone = true;
  vi.restoreAllMocks();
});

describe("pushed answers served before Next.js", () => {
  it("serves the poll's bytes with the security headers; gzipped once for clients that take gzip", async () => {
    resetSecurityPolicy(policy());
    asked = [];
    const plain = await call("/lens/api/v1/nodes", auth);
    expect(plain.status).toBe(200);
    expect(plain.headers["x-next"]).toBeUndefined();
    expect(plain.headers["content-encoding"]).toBeUndefined();
    expect(plain.raw.equals(Buffer.from(BIG))).toBe(true);
    for (const [k, v] of Object.entries({ "content-type": "application/json", "cache-control": "no-store", vary: "Accept-Encoding", "x-content-type-options": "nosniff", "referrer-policy": "no-referrer" })) {
      expect(plain.headers[k], k).toBe(v);
    }
    expect(plain.headers["content-security-policy"]).toContain("frame-ancestors 'self' https://portal.example.com");
    const gz = await call("/lens/api/v1/nodes?cluster=prod", { ...auth, "Accept-Encoding": "gzip, br" });
    expect(gz.headers["content-encoding"]).toBe("gzip");
    expect(Number(gz.headers["content-length"])).toBe(gz.raw.length);
    expect(gz.raw.length).toBeLessThan(BIG.length / 3);
    expect(zlib.gunzipSync(gz.raw).equals(Buffer.from(BIG))).toBe(true);
    // a small answer is sent as it is
    const small = await call("/lens/api/v1/summary", { ...auth, "Accept-Encoding": "gzip" });
    expect(small.headers["content-encoding"]).toBeUndefined();
    expect(small.raw.toString()).toBe('{"cluster":"prod"}');
    expect(asked).toEqual([
      { route: "nodes", search: "" },
      { route: "nodes", search: "?cluster=prod" },
      { route: "summary", search: "" },
    ]);
  });

  it("sends the worker's gzipped copy as it is, when the answer has one", async () => {
    resetSecurityPolicy(policy());
    const gz = await call("/lens/api/v1/collectors", { ...auth, "Accept-Encoding": "gzip" });
    expect(gz.headers["content-encoding"]).toBe("gzip");
    expect(gz.raw.equals(Buffer.from(PREMADE))).toBe(true);
    // a client that does not take gzip gets the body
    const plain = await call("/lens/api/v1/collectors", auth);
    expect(plain.headers["content-encoding"]).toBeUndefined();
    expect(plain.raw.equals(Buffer.from(BIG))).toBe(true);
  });

  it("refuses as proxy.ts does, counting wrong tokens towards the address's limit", async () => {
    vi.spyOn(console, "error").mockImplementation(() => {});
    resetSecurityPolicy(policy());
    asked = [];
    const none = await call("/lens/api/v1/summary", {}, "127.0.0.2");
    expect(none.status).toBe(401);
    expect(none.headers["www-authenticate"]).toContain("Bearer");
    expect(none.headers["content-security-policy"]).toContain("default-src 'self'");
    expect(JSON.parse(none.raw.toString()).error.message).toContain("Authorization: Bearer");
    for (let i = 0; i < 3; i++) expect((await call("/lens/api/v1/collectors", { Authorization: `Bearer wrong-${i}` }, "127.0.0.2")).status).toBe(401);
    const limited = await call("/lens/api/v1/summary", auth, "127.0.0.2");
    expect(limited.status).toBe(429);
    expect(Number(limited.headers["retry-after"])).toBeGreaterThan(0);
    expect(JSON.parse(limited.raw.toString()).error.code).toBe("too_many_failures");
    expect((await call("/lens/api/v1/summary", auth, "127.0.0.3")).status).toBe(200);
    // no refused request reached the answers
    expect(asked).toEqual([{ route: "summary", search: "" }]);
  });

  it("leaves to Next.js whatever it cannot answer exactly as Next.js would", async () => {
    resetSecurityPolicy(policy());
    const next = async (p: string, headers: Record<string, string> = auth) => (await call(p, headers)).headers["x-next"];
    for (const p of ["/lens/api/v1/targets", "/lens/api/v1/nodes/node-1", "/lens/api/v1/summary/", "/lens/api/v1/summary?x=1", "/lens/api/v1/summary?cluster=staging", "/api/v1/summary", "/lens/nodes"]) {
      expect(await next(p), p).toBe("yes");
    }
    firstPollDone = false; // Next.js' route waits for the first poll, bounded
    expect(await next("/lens/api/v1/summary")).toBe("yes");
    firstPollDone = true;
    answerFails = true; // Next.js' route asks again and names the failure
    expect(await next("/lens/api/v1/summary")).toBe("yes");
    answerFails = false;
    resetSecurityPolicy({ ...policy(), broken: "the configuration cannot be loaded: x" });
    expect(await next("/lens/api/v1/summary")).toBe("yes");
  });
});

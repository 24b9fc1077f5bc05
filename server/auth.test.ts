/**
 * Token mode as proxy.ts applies it, with the TCP peer stamped by server/security/peer.ts over real sockets on loopback
 * (clients from 127.0.0.2 and 127.0.0.3): wrong tokens are limited per address (429 with Retry-After, then even a right
 * token waits), short tokens in the token file are not accepted and are named by line, never quoted; outside demo mode the
 * demo routes are 404 before any check.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import type { AddressInfo } from "node:net";
import { NextRequest } from "next/server";
import { compilePolicy } from "@/lib/auth/decide";
import { guard } from "@/server/auth";
import { resetSecurityPolicy, type SecurityPolicy } from "@/server/access";
import { installPeerStamping } from "@/server/security/peer";

const GOOD = "good-token-0123456789abcdefghijklmnopqrstuvwxyz";
let dir: string;
let server: http.Server;
let port: number;

function policy(over: Partial<SecurityPolicy> = {}): SecurityPolicy {
  return {
    auth: compilePolicy({ mode: "token", trustedProxies: [], exemptPaths: ["/api/healthz"] }),
    tokenFile: path.join(dir, "tokens"),
    frameAncestors: ["'self'"],
    demo: false,
    failures: { maxFailures: 3, windowMs: 60_000 },
    ...over,
  };
}

function call(p: string, from: string, token?: string): Promise<{ status: number; retryAfter?: string; body: string }> {
  return new Promise((resolve, reject) => {
    const headers = token ? { Authorization: `Bearer ${token}` } : {};
    const req = http.request({ host: "127.0.0.1", port, path: p, headers, localAddress: from, agent: false }, (res) => {
      let body = "";
      res.on("data", (c) => (body += c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, retryAfter: res.headers["retry-after"] as string | undefined, body }));
    });
    req.on("error", reject);
    req.end();
  });
}

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "al-auth-"));
  fs.writeFileSync(path.join(dir, "tokens"), `# portal\n${GOOD}\nshort-but-secret\n`);
  installPeerStamping();
  server = http.createServer((req, res) => {
    const headers = new Headers();
    for (const [k, v] of Object.entries(req.headers)) if (typeof v === "string") headers.set(k, v);
    const r = guard(new NextRequest(`http://127.0.0.1${req.url}`, { headers }));
    const status = r.headers.get("x-middleware-next") ? 200 : r.status;
    res.writeHead(status, r.headers.get("retry-after") ? { "Retry-After": r.headers.get("retry-after")! } : {});
    void r.text().then((t) => res.end(status === 200 ? "" : t));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  await new Promise((r) => server.close(r));
  fs.rmSync(dir, { recursive: true, force: true });
});
afterEach(() => {
  resetSecurityPolicy();
  vi.restoreAllMocks();
});

describe("token mode", () => {
  it("after maxFailures wrong tokens from one address: 429 with Retry-After, even for the right token; other addresses unaffected", async () => {
    vi.spyOn(console, "error").mockImplementation(() => {});
    resetSecurityPolicy(policy());
    expect((await call("/api/v1/summary", "127.0.0.2", GOOD)).status).toBe(200);
    for (let i = 0; i < 3; i++) expect((await call("/api/v1/summary", "127.0.0.2", `wrong-${i}`)).status).toBe(401);
    const limited = await call("/api/v1/summary", "127.0.0.2", "wrong-again");
    expect(limited.status).toBe(429);
    expect(Number(limited.retryAfter)).toBeGreaterThan(0);
    expect(Number(limited.retryAfter)).toBeLessThanOrEqual(60);
    expect(JSON.parse(limited.body).error.code).toBe("too_many_failures");
    expect((await call("/api/v1/summary", "127.0.0.2", GOOD)).status).toBe(429);
    // the probes stay exempt; another address is not limited
    expect((await call("/api/healthz", "127.0.0.2")).status).toBe(200);
    expect((await call("/api/v1/summary", "127.0.0.3", GOOD)).status).toBe(200);
    expect((await call("/api/v1/summary", "127.0.0.3", "wrong")).status).toBe(401);
  });

  it("a token shorter than 32 characters in the file is not accepted, and the log names its line, not the token", async () => {
    const errors = vi.spyOn(console, "error").mockImplementation(() => {});
    resetSecurityPolicy(policy());
    expect((await call("/api/v1/summary", "127.0.0.3", "short-but-secret")).status).toBe(401);
    const logged = errors.mock.calls.map((c) => c.join(" ")).join("\n");
    expect(logged).toContain(`${path.join(dir, "tokens")} line 3: a token must be at least 32 characters`);
    expect(logged).not.toContain("short-but-secret");
    expect(logged).not.toContain(GOOD);
  });

  it("outside demo mode /api/v1/demo/* is 404 for everyone, before authentication; in demo mode it is authenticated", async () => {
    resetSecurityPolicy(policy());
    expect((await call("/api/v1/demo/faults", "127.0.0.3")).status).toBe(404);
    expect((await call("/api/v1/demo/scenario", "127.0.0.3", GOOD)).status).toBe(404);
    resetSecurityPolicy(policy({ demo: true }));
    expect((await call("/api/v1/demo/faults", "127.0.0.3")).status).toBe(401);
    expect((await call("/api/v1/demo/faults", "127.0.0.3", GOOD)).status).toBe(200);
  });
});

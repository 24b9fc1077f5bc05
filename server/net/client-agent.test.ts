/**
 * boundedRequest and the direct reach's FastHttpClient (server/net/fast-http.ts), one contract, against a real HTTP server
 * on loopback: a keep-alive socket the peer drops while it sits in the pool is retried once on a fresh socket; a reset on
 * a fresh socket, a timeout and an oversized answer are reported as such. The timeout is a deadline for the whole answer
 * (a peer that dribbles a byte at a time is cut), a poll's byte budget is shared by its requests, and a poll's signal
 * cancels them.
 */
import http from "node:http";
import https from "node:https";
import net, { type AddressInfo, type Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { SourceError } from "@/lib/source-error";
import { boundedRequest, bodyExcerpt, readConfiguredFile, type BoundedLimits, type ByteBudget } from "@/server/net/client-agent";
import { FastHttpClient } from "@/server/net/fast-http";

const hints = { tooLarge: "raise maxBytes", timeout: "raise timeout", tls: "check tls" };
const limits = { source: "test", timeoutMs: 2000, maxBytes: 1024, hints };
const get = { path: "/x", method: "GET" as const, headers: {} };

let servers: http.Server[] = [];
let agents: http.Agent[] = [];
/** the FastHttpClient standing for each agent: keep-alive connections of its own, as the agent's sockets */
const fast = new Map<http.Agent, FastHttpClient>();
afterEach(async () => {
  for (const a of agents) a.destroy();
  for (const c of fast.values()) c.close();
  fast.clear();
  for (const s of servers) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
  servers = [];
  agents = [];
});

/** A server that answers `ok` and counts requests and connections; `reset(n)` (n: requests this socket served before) drops the request instead. */
async function serve(reset: (served: number) => boolean, body = "ok") {
  const seen = { requests: 0, sockets: 0 };
  const served = new WeakMap<Socket, number>();
  const server = http.createServer((req, res) => {
    seen.requests++;
    const n = served.get(req.socket) ?? 0;
    served.set(req.socket, n + 1);
    if (reset(n)) req.socket.destroy();
    else res.end(body);
  });
  server.on("connection", () => seen.sockets++);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  servers.push(server);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  agents.push(agent);
  return { base: new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}`), agent, seen };
}

type Spec = typeof get;
const viaFast = (base: URL, agent: http.Agent, spec: Spec, l: BoundedLimits) => {
  let c = fast.get(agent);
  if (!c) fast.set(agent, (c = new FastHttpClient(base, base.protocol === "https:" ? { rejectUnauthorized: false } : null)));
  return c.get(spec.path, spec.headers, l);
};

describe.each([
  ["boundedRequest", boundedRequest],
  ["FastHttpClient", viaFast],
] as const)("%s", (_name, boundedRequest) => {
  it("sends a request again on a fresh socket when the reused keep-alive socket was dropped by the peer", async () => {
    // every socket serves one request, then is dropped when the next one arrives on it
    const { base, agent, seen } = await serve((n) => n > 0);
    const first = await boundedRequest(base, agent, get, limits);
    const second = await boundedRequest(base, agent, get, limits);
    expect([first.status, first.body.toString(), second.status, second.body.toString()]).toEqual([200, "ok", 200, "ok"]);
    expect(seen).toEqual({ requests: 3, sockets: 2 }); // the dropped try, then the fresh socket
  });

  it("reports a reset on a fresh socket as a network error, without trying again", async () => {
    const { base, agent, seen } = await serve(() => true);
    const err = await boundedRequest(base, agent, get, limits).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SourceError);
    expect(err).toMatchObject({ kind: "network", message: expect.stringContaining("ECONNRESET") });
    expect(seen).toEqual({ requests: 1, sockets: 1 });
  });

  it("reports a connection reset before the TLS handshake as a network error, not a TLS one", async () => {
    // what a TA that goes away does to a new connection (and the demo's ta-outage fault to a TLS socket): closed before
    // the handshake, which Node words "Client network socket disconnected before secure TLS connection was established"
    const server = net.createServer((socket) => socket.destroy());
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    try {
      const agent = new https.Agent({ rejectUnauthorized: false });
      agents.push(agent);
      const err = await boundedRequest(new URL(`https://127.0.0.1:${(server.address() as AddressInfo).port}`), agent, get, limits).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(SourceError);
      expect(err).toMatchObject({ kind: "network", message: expect.stringContaining("before secure TLS connection") });
    } finally {
      await new Promise((r) => server.close(r));
    }
  });

  it("bounds the answer's size and time", async () => {
    const big = await serve(() => false, "x".repeat(4096));
    await expect(boundedRequest(big.base, big.agent, get, limits)).rejects.toMatchObject({ kind: "too_large", hint: "raise maxBytes" });

    const silent = http.createServer(() => undefined);
    await new Promise<void>((r) => silent.listen(0, "127.0.0.1", r));
    servers.push(silent);
    const agent = new http.Agent({ keepAlive: true });
    agents.push(agent);
    const base = new URL(`http://127.0.0.1:${(silent.address() as AddressInfo).port}`);
    await expect(boundedRequest(base, agent, get, { ...limits, timeoutMs: 200 })).rejects.toMatchObject({ kind: "timeout", hint: "raise timeout" });
  });

  it("the timeout is a deadline for the whole answer: headers at once, then a byte every 200 ms, is cut at it", async () => {
    const server = http.createServer((_req, res) => {
      res.writeHead(200, { "Content-Type": "application/json" });
      const timer = setInterval(() => res.write(" "), 200);
      res.on("close", () => clearInterval(timer));
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    servers.push(server);
    const agent = new http.Agent({ keepAlive: true });
    agents.push(agent);
    const base = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    const started = performance.now();
    const err = await boundedRequest(base, agent, get, { ...limits, timeoutMs: 1000 }).catch((e: unknown) => e);
    expect(err).toMatchObject({ kind: "timeout", message: "no complete answer within 1 s", hint: "raise timeout" });
    expect(performance.now() - started).toBeLessThan(1800);
  });

  it("returns the same bytes whether the length is declared (one buffer) or not (chunks joined once)", async () => {
    const body = Buffer.from(Array.from({ length: 300_000 }, (_, i) => i % 251));
    const server = http.createServer((req, res) => {
      if (req.url === "/declared") res.writeHead(200, { "Content-Length": String(body.length) });
      let at = 0;
      const more = () => {
        while (at < body.length) {
          const part = body.subarray(at, (at += 7_777));
          if (!res.write(part)) return void res.once("drain", more);
        }
        res.end();
      };
      more();
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    servers.push(server);
    const agent = new http.Agent({ keepAlive: true });
    agents.push(agent);
    const base = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    for (const path of ["/declared", "/chunked"]) {
      const r = await boundedRequest(base, agent, { ...get, path }, { ...limits, maxBytes: 1 << 20 });
      expect(r.body.equals(body), path).toBe(true);
    }
  });

  it("a declared length over the limit or the budget fails before the body is read", async () => {
    const big = await serve(() => false, "x".repeat(4096));
    const budget: ByteBudget = { remaining: 1 << 20, exceeded: () => new SourceError({ source: "poll", kind: "too_large", message: "over budget" }) };
    await expect(boundedRequest(big.base, big.agent, get, { ...limits, budget })).rejects.toMatchObject({ kind: "too_large", message: "answer larger than 1024 bytes" });
    expect(budget.remaining).toBe(1 << 20); // nothing was read
    budget.remaining = 100;
    await expect(boundedRequest(big.base, big.agent, get, { ...limits, maxBytes: 1 << 20, budget })).rejects.toMatchObject({ message: "over budget" });
  });

  it("requests share a budget: the one that goes over it fails with the budget's error", async () => {
    const { base, agent } = await serve(() => false, "y".repeat(600));
    const budget: ByteBudget = { remaining: 1000, exceeded: () => new SourceError({ source: "poll", kind: "too_large", message: "over budget" }) };
    const first = await boundedRequest(base, agent, get, { ...limits, budget });
    expect(first.body.length).toBe(600);
    expect(budget.remaining).toBe(400);
    await expect(boundedRequest(base, agent, get, { ...limits, budget })).rejects.toMatchObject({ message: "over budget" });
  });

  it("a poll's signal cancels a request in flight with its reason, and one not yet sent", async () => {
    const silent = http.createServer(() => undefined);
    await new Promise<void>((r) => silent.listen(0, "127.0.0.1", r));
    servers.push(silent);
    const agent = new http.Agent({ keepAlive: true });
    agents.push(agent);
    const base = new URL(`http://127.0.0.1:${(silent.address() as AddressInfo).port}`);
    const stop = new AbortController();
    const reason = new SourceError({ source: "poll", kind: "timeout", message: "poll deadline" });
    const pending = boundedRequest(base, agent, get, { ...limits, timeoutMs: 60_000, signal: stop.signal });
    setTimeout(() => stop.abort(reason), 50);
    await expect(pending).rejects.toBe(reason);
    await expect(boundedRequest(base, agent, get, { ...limits, signal: stop.signal })).rejects.toBe(reason);
  });

  it("refuses a header value with a line break before anything is sent, and does not repeat the value", async () => {
    const { base, agent, seen } = await serve(() => false);
    const value = "Bearer s3cret\r\nX-Injected: 1";
    const err = await boundedRequest(base, agent, { ...get, headers: { ...get.headers, Authorization: value } }, limits).then(
      () => new Error("expected a refusal"),
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(SourceError);
    expect(err).toMatchObject({ kind: "config", message: expect.stringContaining("Authorization") });
    const text = JSON.stringify(err) + String((err as Error).message);
    expect(text).not.toContain("s3cret");
    expect(text).not.toContain("X-Injected");
    expect(seen.requests).toBe(0);
    // and the client still works for a proper request
    expect((await boundedRequest(base, agent, get, limits)).status).toBe(200);
  });
});

describe("what failures say", () => {
  it("an unreadable configured file: which file and why in the message, its path only in `detail`", () => {
    const err = (() => {
      try {
        readConfiguredFile("/nonexistent/dir/client.key", "client key", "c/ta/per-node", "check the tls paths");
      } catch (e) {
        return e as SourceError;
      }
      throw new Error("expected a SourceError");
    })();
    expect(err.toJSON()).toEqual({ source: "c/ta/per-node", kind: "config", message: "cannot read the configured client key file (ENOENT; see the server log)", hint: "check the tls paths" });
    expect(JSON.stringify(err)).not.toContain("/nonexistent");
    expect(err.detail).toBe("client key file /nonexistent/dir/client.key: ENOENT");
  });

  it("a body excerpt for the log is short printable text", () => {
    expect(bodyExcerpt(Buffer.from("  oops\u0000\n\u001b[31mred  "))).toBe("oops [31mred");
    expect(bodyExcerpt(Buffer.alloc(1000, "a"))).toHaveLength(120);
  });
});

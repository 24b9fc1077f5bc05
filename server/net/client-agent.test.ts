/**
 * boundedRequest against a real HTTP server on loopback: a keep-alive socket the peer drops while it sits in the pool is
 * retried once on a fresh socket; a reset on a fresh socket, a timeout and an oversized answer are reported as such.
 */
import http from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { SourceError } from "@/lib/source-error";
import { boundedRequest } from "@/server/net/client-agent";

const hints = { tooLarge: "raise maxBytes", timeout: "raise timeout", tls: "check tls" };
const limits = { source: "test", timeoutMs: 2000, maxBytes: 1024, hints };
const get = { path: "/x", method: "GET" as const, headers: {} };

let servers: http.Server[] = [];
let agents: http.Agent[] = [];
afterEach(async () => {
  for (const a of agents) a.destroy();
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

describe("boundedRequest", () => {
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
});

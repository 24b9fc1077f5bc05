/**
 * The inbound server over real sockets on 127.0.0.1: slow and oversized uploads are refused without being read, bodies
 * reach a handler only where a route accepts one and only within the limit, and Node's timeouts and caps are the
 * configured ones (the defaults would keep every one of these connections open for minutes).
 */
import { afterEach, describe, expect, it } from "vitest";
import http from "node:http";
import net from "node:net";
import { createInboundServer, isStaticAsset, type Handler } from "@/server/inbound/server";
import { DEFAULT_INBOUND_LIMITS, type InboundLimits } from "@/lib/inbound/limits";

interface Running {
  port: number;
  /** requests that reached the handler, with the body it read */
  handled: { method: string; url: string; body: string; headers: number }[];
  /** connections the server holds now */
  connections(): Promise<number>;
  /** bytes read from each closed server-side socket */
  closedBytesRead: number[];
  close(): Promise<void>;
}

const servers: Running[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

/** Reads the whole body with the stream API, as Next does, and echoes it. */
const echo: (handled: Running["handled"]) => Handler = (handled) => async (req, res) => {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const body = Buffer.concat(chunks).toString("utf8");
  handled.push({ method: req.method!, url: req.url!, body, headers: Object.keys(req.headers).length });
  res.writeHead(200, { "Content-Type": "application/json" });
  res.end(JSON.stringify({ got: body.length }));
};

async function start(limits: Partial<InboundLimits> = {}, gate = { demo: false, basePath: "" }): Promise<Running> {
  const handled: Running["handled"] = [];
  const closedBytesRead: number[] = [];
  const server = createInboundServer({ limits: { ...DEFAULT_INBOUND_LIMITS, ...limits }, gate, handler: echo(handled) });
  const sockets = new Set<net.Socket>();
  server.on("connection", (s: net.Socket) => {
    sockets.add(s);
    s.on("close", () => {
      sockets.delete(s);
      closedBytesRead.push(s.bytesRead);
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const running: Running = {
    port: (server.address() as net.AddressInfo).port,
    handled,
    closedBytesRead,
    connections: () => new Promise((resolve, reject) => server.getConnections((e, n) => (e ? reject(e) : resolve(n)))),
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
  servers.push(running);
  return running;
}

interface Raw {
  socket: net.Socket;
  /** everything the server sent */
  received: () => string;
  /** resolves when the server closed the connection (or reset it), with the ms it took since connecting */
  closed: Promise<number>;
}

/** A raw client: sends `head`, then `chunk` every `everyMs` while the connection is open (a slow upload). */
function raw(port: number, head: string, drip?: { chunk: Buffer; everyMs: number }): Raw {
  const t0 = Date.now();
  const socket = net.connect({ port, host: "127.0.0.1", allowHalfOpen: true });
  let received = "";
  let timer: NodeJS.Timeout | undefined;
  socket.on("connect", () => {
    socket.write(head);
    if (drip) timer = setInterval(() => socket.writable && socket.write(drip.chunk), drip.everyMs);
  });
  socket.on("data", (d) => (received += d.toString("latin1")));
  socket.on("error", () => {});
  const closed = new Promise<number>((resolve) => {
    const done = () => {
      clearInterval(timer);
      resolve(Date.now() - t0);
    };
    socket.on("end", done);
    socket.on("close", done);
  });
  return { socket, received: () => received, closed };
}

/** Bounded: the connection must be closed by the server within `ms`, or the test fails (the client is then destroyed). */
async function closedWithin(c: Raw, ms: number): Promise<number> {
  const timeout = new Promise<number>((resolve) => setTimeout(() => resolve(Infinity), ms).unref());
  const took = await Promise.race([c.closed, timeout]);
  c.socket.destroy();
  expect(took, `the server kept the connection for more than ${ms} ms; received ${JSON.stringify(c.received().slice(0, 120))}`).toBeLessThan(ms);
  return took;
}

const statusOf = (text: string) => Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0);
const SLOW = { chunk: Buffer.alloc(256 * 1024, 0x61), everyMs: 100 };

function request(port: number, method: string, path: string, body?: string, headers: Record<string, string> = {}): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: "127.0.0.1", port, method, path, headers, agent: false }, (res) => {
      let text = "";
      res.on("data", (c) => (text += c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.on("error", reject);
    req.end(body);
  });
}

describe("the body gate", () => {
  it("answers a 2 GB upload dripped at 256 kB / 100 ms to /api/healthz with 413 at once and closes, having read almost nothing", async () => {
    const s = await start();
    const c = raw(s.port, "POST /api/healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/octet-stream\r\nContent-Length: 2000000000\r\n\r\n", SLOW);
    await closedWithin(c, 3_000);
    expect(statusOf(c.received())).toBe(413);
    expect(JSON.parse(c.received().split("\r\n\r\n")[1]).error.code).toBe("body_not_accepted");
    expect(c.received()).toMatch(/\r\nConnection: close\r\n/i);
    await expect.poll(() => s.closedBytesRead.length).toBe(1);
    expect(s.closedBytesRead[0]).toBeLessThan(1024 * 1024);
    expect(s.handled).toEqual([]);
  });

  it("refuses a body on GET, HEAD, OPTIONS and on any route but the demo's, without calling the handler", async () => {
    const s = await start({}, { demo: true, basePath: "" });
    for (const [method, path] of [
      ["GET", "/api/v1/summary"],
      ["HEAD", "/"],
      ["OPTIONS", "/api/v1/demo/faults"],
      ["GET", "/api/v1/demo/faults"],
      ["POST", "/api/v1/summary"],
      ["POST", "/nodes"],
      ["PUT", "/api/v1/demo/faults"],
    ]) {
      const c = raw(s.port, `${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 5\r\n\r\nhello`);
      await closedWithin(c, 3_000);
      expect(statusOf(c.received()), `${method} ${path}`).toBe(413);
    }
    expect(s.handled).toEqual([]);
    // without a body they pass
    expect((await request(s.port, "GET", "/api/v1/summary")).status).toBe(200);
    expect((await request(s.port, "POST", "/api/v1/summary", undefined, { "Content-Length": "0" })).status).toBe(200);
  });

  it("outside demo mode: 404 for every method on /api/v1/demo/*, body unread, whatever the spelling or base path", async () => {
    const s = await start({}, { demo: false, basePath: "/lens" });
    const cases = [
      ["GET", "/lens/api/v1/demo/faults", ""],
      ["POST", "/lens/api/v1/demo/faults", "Content-Length: 2000000000\r\n"],
      ["DELETE", "/lens/api/v1/demo/faults", ""],
      ["OPTIONS", "/lens/api/v1/demo/faults", ""],
      ["PUT", "/lens/api/v1/demo/scenario", "Transfer-Encoding: chunked\r\n"],
      ["POST", "/lens/api/v1/x/../demo/%66aults", "Content-Length: 10\r\n"],
      ["POST", "/lens/API/v1//Demo/scenario?x=1", "Content-Length: 10\r\n"],
    ];
    for (const [method, path, extra] of cases) {
      const c = raw(s.port, `${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n${extra}\r\n`, extra ? SLOW : undefined);
      await closedWithin(c, 3_000);
      expect(statusOf(c.received()), `${method} ${path}`).toBe(404);
    }
    expect(s.handled).toEqual([]);
    expect(Math.max(...s.closedBytesRead)).toBeLessThan(1024 * 1024);
  });

  it("demo mode: the demo routes get their body, in full, within the limit; chunked bodies are counted and cut", async () => {
    const s = await start({ maxBodyBytes: 4096 }, { demo: true, basePath: "" });
    const fault = JSON.stringify({ fault: "node-remove", node: "n1" });
    expect(await request(s.port, "POST", "/api/v1/demo/faults", fault, { "Content-Type": "application/json" })).toEqual({ status: 200, body: JSON.stringify({ got: fault.length }) });
    // chunked, within the limit
    const chunked = raw(s.port, `POST /api/v1/demo/scenario HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n`);
    await closedWithin(chunked, 3_000);
    expect(statusOf(chunked.received())).toBe(200);
    expect(s.handled.map((h) => h.body)).toEqual([fault, "hello world"]);
    // declared over the limit: refused before reading
    const declared = raw(s.port, "POST /api/v1/demo/faults HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 4097\r\n\r\n", SLOW);
    await closedWithin(declared, 3_000);
    expect(statusOf(declared.received())).toBe(413);
    expect(JSON.parse(declared.received().split("\r\n\r\n")[1]).error.code).toBe("body_too_large");
    // chunked, dripping past the limit: cut at the limit, the handler never sees it
    const chunk = Buffer.from(`400\r\n${"x".repeat(1024)}\r\n`);
    const drip = raw(s.port, "POST /api/v1/demo/faults HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\n", { chunk, everyMs: 20 });
    await closedWithin(drip, 3_000);
    expect(statusOf(drip.received())).toBe(413);
    expect(s.handled).toHaveLength(2);
  });

  it("Expect: 100-continue: a refused upload never gets its 100 Continue; an accepted one does", async () => {
    const s = await start({}, { demo: true, basePath: "" });
    const refused = raw(s.port, "POST /api/v1/summary HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 100\r\nExpect: 100-continue\r\n\r\n");
    await closedWithin(refused, 3_000);
    expect(refused.received()).not.toContain("100 Continue");
    expect(statusOf(refused.received())).toBe(413);
    const accepted = raw(s.port, "POST /api/v1/demo/faults HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 2\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n");
    await expect.poll(() => accepted.received()).toContain("100 Continue");
    accepted.socket.write("{}");
    await closedWithin(accepted, 3_000);
    expect(accepted.received()).toContain("200 OK");
  });
});

describe("server limits", () => {
  it("closes a connection whose headers do not arrive within headersTimeoutSeconds (slowloris)", async () => {
    const s = await start({ headersTimeoutSeconds: 1, requestTimeoutSeconds: 2 });
    const c = raw(s.port, "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n", { chunk: Buffer.from("X-A: b\r\n"), everyMs: 100 });
    const took = await closedWithin(c, 4_000);
    expect(took).toBeGreaterThanOrEqual(900);
    expect(s.handled).toEqual([]);
  });

  it("closes a demo upload that does not complete within requestTimeoutSeconds, though under the size limit", async () => {
    const s = await start({ headersTimeoutSeconds: 1, requestTimeoutSeconds: 2 }, { demo: true, basePath: "" });
    const c = raw(s.port, "POST /api/v1/demo/faults HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 60000\r\n\r\n", { chunk: Buffer.from("x"), everyMs: 50 });
    await closedWithin(c, 5_000);
    expect(s.handled).toEqual([]);
  });

  it("closes an idle keep-alive connection after keepAliveTimeoutSeconds", async () => {
    const s = await start({ keepAliveTimeoutSeconds: 1 });
    const c = raw(s.port, "GET /a HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
    await closedWithin(c, 3_500);
    expect(statusOf(c.received())).toBe(200);
  });

  it("accepts at most maxConnections connections; the next one is closed at once", async () => {
    const s = await start({ maxConnections: 3 });
    const held = [0, 1, 2].map(() => raw(s.port, "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n"));
    // the server has accepted the three (it counts the connections it accepted, not the clients' connects)
    await expect.poll(() => s.connections()).toBe(3);
    const extra = raw(s.port, "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
    await closedWithin(extra, 2_000);
    expect(extra.received()).toBe("");
    for (const h of held) h.socket.destroy();
  });

  it("refuses headers over maxHeaderBytes (431) and keeps at most maxHeadersCount of them", async () => {
    const s = await start({ maxHeaderBytes: 2048, maxHeadersCount: 10 });
    const big = raw(s.port, `GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: ${"a".repeat(4096)}\r\n\r\n`);
    await closedWithin(big, 3_000);
    expect(statusOf(big.received())).toBe(431);
    const many = Array.from({ length: 30 }, (_, i) => `X-H${i}: v`);
    const r = raw(s.port, `GET /many HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n${many.join("\r\n")}\r\n\r\n`);
    await closedWithin(r, 3_000);
    expect(statusOf(r.received())).toBe(200);
    expect(s.handled.map((h) => h.headers)).toEqual([10]);
  });
});

describe("per-client limits in front of Next.js", () => {
  /** A server whose handler holds every request until `release()`, limited to `maxInFlight` per client address. */
  async function holding(maxInFlight: number, lockout?: (client: string) => number) {
    const waiting: (() => void)[] = [];
    let handled = 0;
    const server = createInboundServer({
      limits: DEFAULT_INBOUND_LIMITS,
      gate: { demo: false, basePath: "" },
      clients: { of: (req) => req.socket.remoteAddress ?? "unknown", maxInFlight },
      lockout: lockout ? (_req, client) => lockout(client) : undefined,
      handler: (_req, res) => {
        handled++;
        waiting.push(() => res.end("ok"));
      },
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const port = (server.address() as net.AddressInfo).port;
    const get = (localAddress: string) =>
      new Promise<{ status: number; retryAfter: string | undefined }>((resolve, reject) => {
        const agent = new http.Agent({ keepAlive: false });
        http
          .get({ host: "127.0.0.1", port, path: "/api/v1/summary", localAddress, agent }, (res) => {
            res.resume();
            res.on("end", () => resolve({ status: res.statusCode ?? 0, retryAfter: res.headers["retry-after"] as string | undefined }));
          })
          .on("error", reject);
      });
    const until = async (n: number) => {
      while (waiting.length < n) await new Promise((r) => setImmediate(r));
    };
    const release = () => waiting.splice(0).forEach((f) => f());
    servers.push({ port, handled: [], connections: async () => 0, closedBytesRead: [], close: () => new Promise<void>((r) => (release(), server.close(() => r()))) });
    return { get, until, release, handled: () => handled };
  }

  it("refuses a client past maxRequestsPerClient at once (429), while another client is served", async () => {
    const s = await holding(2);
    const held = [s.get("127.0.0.2"), s.get("127.0.0.2")];
    await s.until(2);
    expect(await s.get("127.0.0.2")).toEqual({ status: 429, retryAfter: "1" });
    const other = s.get("127.0.0.3");
    await s.until(3);
    expect(s.handled()).toBe(3);
    s.release();
    expect((await Promise.all([...held, other])).map((r) => r.status)).toEqual([200, 200, 200]);
    // its requests answered, the client may send again
    const again = s.get("127.0.0.2");
    await s.until(1);
    s.release();
    expect((await again).status).toBe(200);
  });

  it("answers a locked-out client 429 with Retry-After without handing the request on", async () => {
    const s = await holding(8, (client) => (client.endsWith("127.0.0.2") ? 17 : 0));
    expect(await s.get("127.0.0.2")).toEqual({ status: 429, retryAfter: "17" });
    expect(s.handled()).toBe(0);
    const other = s.get("127.0.0.3");
    await s.until(1);
    s.release();
    expect((await other).status).toBe(200);
  });
});

describe("per-client rate in front of Next.js", () => {
  it("holds a client sending as fast as it can to its burst and rate, and serves another client meanwhile", async () => {
    let handled = 0;
    const server = createInboundServer({
      limits: DEFAULT_INBOUND_LIMITS,
      gate: { demo: false, basePath: "" },
      clients: { of: (req) => req.socket.remoteAddress ?? "unknown", maxInFlight: 1000, perSecond: 1, burst: 10 },
      handler: (_req, res) => {
        handled++;
        res.end("ok");
      },
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    servers.push({ port: 0, handled: [], connections: async () => 0, closedBytesRead: [], close: () => new Promise<void>((r) => server.close(() => r())) });
    const port = (server.address() as net.AddressInfo).port;
    const get = (localAddress: string) =>
      new Promise<{ status: number; retryAfter: string | undefined }>((resolve, reject) => {
        http
          .get({ host: "127.0.0.1", port, path: "/api/v1/summary", localAddress, agent: false }, (res) => {
            res.resume();
            res.on("end", () => resolve({ status: res.statusCode ?? 0, retryAfter: res.headers["retry-after"] as string | undefined }));
          })
          .on("error", reject);
      });
    const flood: { status: number; retryAfter: string | undefined }[] = [];
    for (let i = 0; i < 30; i++) flood.push(await get("127.0.0.2"));
    const served = flood.filter((r) => r.status === 200).length;
    // the burst, and at most a token or two refilled while the 30 requests ran
    expect(served).toBeGreaterThanOrEqual(10);
    expect(served).toBeLessThanOrEqual(12);
    expect(flood.filter((r) => r.status === 429).every((r) => Number(r.retryAfter) >= 1)).toBe(true);
    expect(handled).toBe(served);
    expect((await get("127.0.0.3")).status).toBe(200);
  });
});

describe("isStaticAsset", () => {
  it("is the build's static files only, with no way to another route", () => {
    expect(isStaticAsset("/_next/static/chunks/a1b2.js", "")).toBe(true);
    expect(isStaticAsset("/lens/_next/static/css/x.css?v=1", "/lens")).toBe(true);
    expect(isStaticAsset("/_next/static/../../api/v1/summary", "")).toBe(false);
    expect(isStaticAsset("/_next/static/%2e%2e/api/v1/summary", "")).toBe(false);
    expect(isStaticAsset("/api/v1/summary", "")).toBe(false);
    expect(isStaticAsset("/_next/static/x.js", "/lens")).toBe(false);
  });
});

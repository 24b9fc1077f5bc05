/**
 * The demo API's port-forward against an echo server: client-node's PortForward (WebSocket channels), a hand-driven
 * SPDY/3.1 session (plain upgrade: SYN_STREAM error + data, SYN_REPLY, DATA both ways, PING echoed), the refused port on
 * the error channel, and tunnels closed by the pod's deletion.
 */
import { mkdtemp, rm } from "node:fs/promises";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { PassThrough } from "node:stream";
import { KubeConfig, PortForward } from "@kubernetes/client-node";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { waitFor } from "@allocation-lens/test-support/wait";
import type { Store } from "../../store";
import { startKubeApi, type KubeApiServer } from "@allocation-lens/demo-cluster/internal/kube/server";
import { demoStore, pod } from "../../../test/fixtures/kube";
import { dataFrame, FLAG_FIN, FrameParser, FrameType, frameStreamId, HeaderCodec, pingFrame, synStreamFrame, type Frame } from "./spdy";

let store: Store;
let api: KubeApiServer;
let dir: string;
let echo: net.Server;
let echoSockets: Set<net.Socket>;

beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "pf-test-"));
  store = demoStore();
  store.upsert("pods", pod("observability", "ta-1", "node-a", { app: "ta" }));
  echoSockets = new Set();
  echo = net.createServer((c) => {
    echoSockets.add(c);
    c.on("close", () => echoSockets.delete(c));
    c.on("data", (d: Buffer) => c.write(Buffer.concat([Buffer.from("echo:"), d])));
  });
  await new Promise<void>((r) => echo.listen(0, "127.0.0.1", r));
  const echoPort = (echo.address() as net.AddressInfo).port;
  api = await startKubeApi(store, {
    dir,
    backendFor: (ns, name, port) => (ns === "observability" && name === "ta-1" && port === 8080 ? { host: "127.0.0.1", port: echoPort, tls: false } : undefined),
  });
});

afterEach(async () => {
  await api.close();
  for (const c of echoSockets) c.destroy();
  await new Promise<void>((r) => echo.close(() => r()));
  await rm(dir, { recursive: true, force: true });
});

function portForward(name: string, port: number) {
  const kc = new KubeConfig();
  kc.loadFromFile(api.kubeconfigPath);
  const out = new PassThrough();
  const err = new PassThrough();
  const input = new PassThrough();
  let received = "";
  let errors = "";
  out.on("data", (c: Buffer) => (received += c.toString()));
  err.on("data", (c: Buffer) => (errors += c.toString()));
  const ws = new PortForward(kc).portForward("observability", name, [port], out, err, input);
  return { ws, input, received: () => received, errors: () => errors };
}

describe("port-forward over WebSocket channels (client-node)", () => {
  it("pipes bytes both ways to the pod's server, one tunnel per WebSocket, closed when the pod is deleted", async () => {
    const f = portForward("ta-1", 8080);
    const ws = (await f.ws) as unknown as { protocol: string; readyState: number };
    expect(ws.protocol).toBe("v4.channel.k8s.io");
    f.input.write("hello");
    await waitFor("the echo", () => f.received() === "echo:hello", { last: f.received });
    f.input.write(" again");
    await waitFor("the second echo", () => f.received() === "echo:helloecho: again", { last: f.received });
    expect(api.tunnels()).toEqual({ "observability/ta-1": 1 });
    expect(api.stats()["portforward:websocket"]).toBe(1);
    store.remove("pods", "observability", "ta-1");
    await waitFor("the WebSocket closed", () => ws.readyState === 3);
    await waitFor("no tunnel left", () => Object.keys(api.tunnels()).length === 0);
  });

  it("a port the pod does not serve: upgraded, then the kubelet's error on channel 1 and a close", async () => {
    const f = portForward("ta-1", 9090);
    const ws = (await f.ws) as unknown as { readyState: number };
    await waitFor("the error text", () => /^error forwarding port 9090 to pod .*connection refused$/.test(f.errors()), { last: f.errors });
    await waitFor("the WebSocket closed", () => ws.readyState === 3);
  });

  it("an unknown pod is a 404 before the upgrade", async () => {
    await expect(portForward("nope", 8080).ws).rejects.toBeDefined();
    expect(api.stats().notFound).toBe(1);
  });
});

/** A hand-driven SPDY client on a raw socket after `Upgrade: SPDY/3.1`. */
async function spdyClient(name: string) {
  const socket = net.connect(api.port, "127.0.0.1");
  await new Promise<void>((r) => socket.once("connect", () => r()));
  socket.write(
    `POST /api/v1/namespaces/observability/pods/${name}/portforward HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: SPDY/3.1\r\nX-Stream-Protocol-Version: portforward.k8s.io\r\nContent-Length: 0\r\n\r\n`,
  );
  let head = Buffer.alloc(0);
  const rest = await new Promise<Buffer>((resolve) => {
    const onData = (c: Buffer) => {
      head = Buffer.concat([head, c]);
      const end = head.indexOf("\r\n\r\n");
      if (end >= 0) {
        socket.off("data", onData);
        resolve(head.subarray(end + 4));
      }
    };
    socket.on("data", onData);
  });
  const status = head.toString("latin1").split("\r\n")[0];
  const parser = new FrameParser();
  const frames: Frame[] = [...parser.push(rest)];
  socket.on("data", (c: Buffer) => frames.push(...parser.push(c)));
  const codec = new HeaderCodec();
  return { socket, status, head: head.toString("latin1"), frames, codec };
}

describe("port-forward over SPDY/3.1", () => {
  it("answers SYN_REPLY to the error and data streams, pipes DATA both ways, echoes PING, ends with FIN", async () => {
    const c = await spdyClient("ta-1");
    expect(c.status).toBe("HTTP/1.1 101 Switching Protocols");
    expect(c.head).toMatch(/X-Stream-Protocol-Version: portforward\.k8s\.io/i);
    c.socket.write(synStreamFrame(1, await c.codec.compress({ streamtype: "error", port: "8080", requestid: "0" })));
    c.socket.write(dataFrame(1, Buffer.alloc(0), true));
    c.socket.write(synStreamFrame(3, await c.codec.compress({ streamtype: "data", port: "8080", requestid: "0" })));
    c.socket.write(pingFrame(1));
    await waitFor("two SYN_REPLYs and the PING", () => c.frames.filter((f) => f.kind === "control" && (f.type === FrameType.SYN_REPLY || f.type === FrameType.PING)).length === 3);
    const replies = c.frames.filter((f): f is Frame & { kind: "control" } => f.kind === "control" && f.type === FrameType.SYN_REPLY);
    expect(replies.map((f) => frameStreamId(f))).toEqual([1, 3]);
    c.socket.write(dataFrame(3, Buffer.from("ping")));
    const text = () => Buffer.concat(c.frames.filter((f) => f.kind === "data" && f.streamId === 3).map((f) => f.data)).toString();
    await waitFor("the echo on the data stream", () => text() === "echo:ping", { last: text });
    // the client is done sending: the server half-closes the backend, which ends, and both streams get FIN
    c.socket.write(dataFrame(3, Buffer.alloc(0), true));
    await waitFor("FIN on both streams", () => [1, 3].every((id) => c.frames.some((f) => f.kind === "data" && f.streamId === id && f.flags & FLAG_FIN)), { last: () => c.frames });
    const errorText = Buffer.concat(c.frames.filter((f) => f.kind === "data" && f.streamId === 1).map((f) => f.data)).toString();
    expect(errorText).toBe("");
    c.socket.destroy();
    c.codec.close();
  });

  it("writes the refusal on the error stream for a port the pod does not serve", async () => {
    const c = await spdyClient("ta-1");
    c.socket.write(synStreamFrame(1, await c.codec.compress({ streamtype: "error", port: "9999", requestid: "7" })));
    c.socket.write(synStreamFrame(3, await c.codec.compress({ streamtype: "data", port: "9999", requestid: "7" })));
    const errorText = () => Buffer.concat(c.frames.filter((f) => f.kind === "data" && f.streamId === 1).map((f) => f.data)).toString();
    await waitFor("the error text", () => /error forwarding port 9999 .*connection refused/.test(errorText()), { last: errorText });
    c.socket.destroy();
    c.codec.close();
  });
});

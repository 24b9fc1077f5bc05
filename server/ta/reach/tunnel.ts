import "server-only";
/**
 * One TCP connection to a pod's port through the Kubernetes API server: a `pods/portforward` WebSocket opened by
 * client-node's PortForward (one WebSocket per connection), seen as a `stream.Duplex` that an HTTP agent can use as its
 * socket, or that TLS can run over (the TA then sees our client certificate: the API server only carries bytes).
 *
 * The WebSocket is `ws`, made by our own factory so that the status of a refused upgrade (403, 404) is known: client-node's
 * WebSocketHandler only rejects with an error event. A tunnel that ends while in use, or with text on the port-forward
 * error channel, destroys its socket with a `network` SourceError whose message is that text; the request in flight fails
 * with it, and the agent drops the socket.
 */
import type { IncomingMessage } from "node:http";
import { Duplex, PassThrough, Writable } from "node:stream";
import { WebSocket } from "ws";
import * as k8s from "@kubernetes/client-node";
import { SourceError } from "@/lib/source-error";
import { channelErrorText, forbiddenMessage } from "@/lib/ta/reach";

/** the readyState of a closed WebSocket */
const WS_CLOSED = 3;

export interface TunnelTarget {
  namespace: string;
  pod: string;
  port: number;
}

/** What the Duplex of a tunnel adds for the HTTP agent: the calls it makes of a net.Socket. */
export class TunnelSocket extends Duplex {
  /** bytes we write, given to PortForward as its input */
  readonly input = new PassThrough();
  /** bytes from the pod, written by PortForward */
  readonly output: Writable;
  /** the port-forward error channel */
  readonly errors: Writable;
  private readonly errorText: Buffer[] = [];
  private ws: WebSocket | null = null;
  /** the socket a failure is reported on: this one, or the TLS socket running over it */
  outer: Duplex = this;
  /** called once when the tunnel ends on its own (not by destroy()): the pod may be gone */
  onBroken: ((err: SourceError) => void) | null = null;
  private ours = false;
  private timeoutMs = 0;
  private idleTimer: NodeJS.Timeout | null = null;

  constructor(
    readonly target: TunnelTarget,
    private readonly source: string,
  ) {
    super({ allowHalfOpen: false });
    this.output = new Writable({
      write: (chunk: Buffer, _enc, cb) => {
        if (chunk.length) {
          this.touch();
          this.push(chunk);
        }
        cb();
      },
    });
    this.errors = new Writable({
      write: (chunk: Buffer, _enc, cb) => {
        if (this.errorText.reduce((n, b) => n + b.length, 0) < 4096) this.errorText.push(chunk);
        cb();
      },
    });
  }

  /** The WebSocket this tunnel runs on: its end ends the tunnel. */
  attach(ws: WebSocket): void {
    this.ws = ws;
    ws.on("close", (code: number) => this.wsClosed(code));
    ws.on("error", () => {}); // the close that follows reports it
    if (ws.readyState === WS_CLOSED) this.wsClosed(1006);
  }

  /** the text the error channel carried, as one line */
  channelError(): string {
    return channelErrorText(Buffer.concat(this.errorText));
  }

  private wsClosed(code: number): void {
    if (this.ours || this.destroyed) return;
    const text = this.channelError();
    const err = new SourceError({
      source: this.source,
      kind: "network",
      message: text || `the port-forward to pod ${this.target.namespace}/${this.target.pod} closed (WebSocket code ${code})`,
      hint: "the TA pod was deleted or restarted, or the API server dropped the tunnel: the next poll opens a new one",
    });
    this.onBroken?.(err);
    if (text) {
      this.outer.destroy(err);
      if (this.outer !== this) this.destroy();
      return;
    }
    // a tunnel closed before any answer on a reused connection is sent again on a fresh one (boundedRequest)
    Object.assign(err, { code: "ECONNRESET" });
    if (this.outer !== this) {
      // TLS reads what arrived before the end (an alert refusing our certificate is a `tls` failure, not a network one),
      // then the end: an answer cut short fails as a reset (network), a complete one is kept
      this.push(null);
      return;
    }
    if (this.readableLength === 0) this.destroy(err);
    else {
      // the bytes that arrived are read first (an answer followed by the close is whole), then the request in flight fails
      this.once("end", () => {
        this.emit("error", err);
        this.destroy();
      });
      this.push(null);
    }
  }

  override _write(chunk: Buffer, _enc: BufferEncoding, cb: (err?: Error | null) => void): void {
    this.touch();
    this.input.write(chunk, cb);
  }

  override _read(): void {}

  override _final(cb: (err?: Error | null) => void): void {
    cb();
  }

  override _destroy(err: Error | null, cb: (err?: Error | null) => void): void {
    this.ours = true;
    if (this.idleTimer) clearTimeout(this.idleTimer);
    const ws = this.ws;
    if (ws && ws.readyState !== WS_CLOSED) ws.terminate();
    this.input.destroy();
    cb(err);
  }

  // what http.Agent and ClientRequest call on a socket
  setKeepAlive(): this {
    return this;
  }
  setNoDelay(): this {
    return this;
  }
  ref(): this {
    return this;
  }
  unref(): this {
    return this;
  }
  setTimeout(ms: number, cb?: () => void): this {
    this.timeoutMs = ms;
    if (cb) this.once("timeout", cb);
    this.touch();
    return this;
  }

  private touch(): void {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = this.timeoutMs > 0 ? setTimeout(() => this.emit("timeout"), this.timeoutMs) : null;
  }
}

export interface OpenOptions {
  /** the SourceError's source */
  source: string;
  /** how long the upgrade may take */
  handshakeTimeoutMs: number;
}

/** The status of an upgrade the API server refused. */
class UpgradeRefused extends Error {
  constructor(readonly status: number) {
    super(`HTTP ${status}`);
  }
}

type WebSocketInterface = NonNullable<ConstructorParameters<typeof k8s.PortForward>[2]>;

/** The `ws` client options used here (the package ships no types; its declaration in this repository is the server side's). */
interface ClientOptions {
  ca?: unknown;
  cert?: unknown;
  key?: unknown;
  headers?: Record<string, string>;
  servername?: string;
  rejectUnauthorized?: boolean;
  agent?: unknown;
  handshakeTimeout?: number;
  perMessageDeflate?: boolean;
}
const ClientSocket = WebSocket as unknown as new (address: string, protocols: string[], options: ClientOptions) => WebSocket;

/**
 * client-node's WebSocketInterface, on `ws` with the kubeconfig's TLS and credentials (applyToHTTPSOptions gives the CA,
 * client certificate and the Authorization header of token and exec/auth-provider users), rejecting a refused upgrade
 * with its status. Binary messages are `channel byte + data`, as PortForward reads them.
 */
function channelSocket(kc: k8s.KubeConfig, handshakeTimeoutMs: number): WebSocketInterface {
  return {
    async connect(path: string, _text: unknown, binary: ((stream: number, buff: Buffer) => boolean) | null) {
      const server = kc.getCurrentCluster()?.server;
      if (!server) throw new Error("the kubeconfig has no current cluster");
      const opts: ClientOptions = {};
      await kc.applyToHTTPSOptions(opts as never);
      const ws = new ClientSocket(`${server.replace(/^http/, "ws").replace(/\/+$/, "")}${path}`, ["v4.channel.k8s.io", "channel.k8s.io"], {
        ...opts,
        handshakeTimeout: handshakeTimeoutMs,
        perMessageDeflate: false,
      });
      return await new Promise((resolve, reject) => {
        ws.on("unexpected-response", (...args: unknown[]) => {
          const res = args[1] as IncomingMessage;
          reject(new UpgradeRefused(res.statusCode ?? 0));
          res.resume();
          ws.terminate();
        });
        ws.once("open", () => resolve(ws as never));
        ws.on("error", reject); // after open: nothing (settled); the close that follows ends the tunnel
        ws.on("message", (data: Buffer, isBinary: boolean) => {
          if (!isBinary || !binary || !Buffer.isBuffer(data) || data.length < 1) return;
          if (!binary(data[0], data.subarray(1))) ws.close();
        });
      });
    },
  } as unknown as WebSocketInterface;
}

/**
 * Opens a tunnel to `target`: resolves once the WebSocket is open, or rejects with a SourceError: `forbidden` naming the
 * missing permission (a 401/403 on the upgrade), `not_found` naming the pod (404), `network` otherwise.
 */
export async function openTunnel(kc: k8s.KubeConfig, target: TunnelTarget, options: OpenOptions): Promise<TunnelSocket> {
  const { source } = options;
  const tunnel = new TunnelSocket(target, source);
  const forward = new k8s.PortForward(kc, true, channelSocket(kc, options.handshakeTimeoutMs));
  let ws: WebSocket;
  try {
    ws = (await forward.portForward(target.namespace, target.pod, [target.port], tunnel.output, tunnel.errors, tunnel.input)) as unknown as WebSocket;
  } catch (e) {
    tunnel.destroy();
    throw upgradeError(source, target, e instanceof UpgradeRefused ? e.status : null, e);
  }
  tunnel.attach(ws);
  return tunnel;
}

function upgradeError(source: string, target: TunnelTarget, status: number | null, e: unknown): SourceError {
  const where = `pod ${target.namespace}/${target.pod}`;
  if (status === 401 || status === 403) {
    return new SourceError({
      source,
      kind: "forbidden",
      status,
      message: forbiddenMessage("create", "pods/portforward", target.namespace),
      hint: "reach portForward opens a tunnel to the TA pod with the kubeconfig's user",
    });
  }
  if (status === 404) {
    return new SourceError({ source, kind: "not_found", status, message: `the ${where} does not exist (it was deleted or replaced)`, hint: "the next poll looks the Service's pods up again" });
  }
  if (status !== null) {
    return new SourceError({ source, kind: status >= 500 ? "network" : "http", status, message: `the API server refused the port-forward to ${where}: HTTP ${status}` });
  }
  const ev = e as { message?: string; code?: string };
  const text = ev?.message ?? String(e);
  const code = ev?.code;
  return new SourceError({ source, kind: "network", message: `the port-forward to ${where} failed: ${code ? `${code}: ` : ""}${String(text).split("\n")[0].slice(0, 200)}` });
}

/**
 * Port-forward sessions of the demo's Kubernetes API: each forwarded connection is one TCP connection from the demo to
 * the loopback server behind (pod, port) (a TA server); bytes are piped both ways as they are (TLS stays end to end).
 * Two transports: the kubelet's WebSocket channels (what @kubernetes/client-node speaks) and SPDY/3.1 (what kubectl
 * speaks, over a plain `Upgrade: SPDY/3.1` or tunnelled in a WebSocket). A session is a `Tunnel` the server closes when
 * its pod is deleted.
 */
import net from "node:net";
import type { Duplex } from "node:stream";
import type { WebSocket } from "ws";
import type { Backend } from "../../ta-pods";
import { channelMessage, parseChannelMessage, portMessage, refusedText } from "./channel";
import {
  dataFrame,
  FLAG_FIN,
  FrameParser,
  FrameType,
  frameStreamId,
  goawayFrame,
  HeaderCodec,
  rstStreamFrame,
  RstStatus,
  synReplyFrame,
  synStreamBlock,
  type Frame,
} from "./spdy";

export interface ForwardTarget {
  namespace: string;
  pod: string;
  uid: string;
  /** the server behind `port` of the pod, undefined when the pod does not serve it */
  backendFor(port: number): Backend | undefined;
}

export interface Tunnel {
  close(): void;
}

/** Connects to the backend of `port`; calls `refused` with the kubelet's text when there is none or it refuses. */
function dial(target: ForwardTarget, port: number, refused: (text: string) => void): net.Socket | undefined {
  const backend = target.backendFor(port);
  if (!backend) {
    refused(refusedText(port, target.pod, target.uid));
    return undefined;
  }
  const socket = net.connect({ host: backend.host, port: backend.port });
  socket.on("error", (e) => refused(`error forwarding port ${port} to pod ${target.uid}, uid : ${(e as Error).message}`));
  return socket;
}

/** The kubelet's WebSocket port-forward over `ws` (channel framing), one TCP connection per requested port. */
export function forwardWebSocket(ws: WebSocket, target: ForwardTarget, ports: number[]): Tunnel {
  const sockets: (net.Socket | undefined)[] = [];
  const close = () => {
    for (const s of sockets) s?.destroy();
    if (ws.readyState === ws.OPEN || ws.readyState === ws.CONNECTING) ws.close();
  };
  ports.forEach((port, i) => {
    ws.send(portMessage(2 * i, port));
    ws.send(portMessage(2 * i + 1, port));
  });
  ports.forEach((port, i) => {
    let failed = false;
    const socket = dial(target, port, (text) => {
      if (failed) return;
      failed = true;
      if (ws.readyState === ws.OPEN) ws.send(channelMessage(2 * i + 1, text));
      close();
    });
    sockets[i] = socket;
    if (!socket) return;
    socket.on("data", (chunk: Buffer) => {
      if (ws.readyState === ws.OPEN) ws.send(channelMessage(2 * i, chunk));
    });
    socket.on("close", () => close());
  });
  ws.on("message", (raw: Buffer, isBinary: boolean) => {
    const msg = isBinary ? raw : Buffer.from(raw);
    const m = parseChannelMessage(msg);
    if (!m || m.channel % 2 !== 0) return;
    sockets[m.channel / 2]?.write(m.data);
  });
  ws.on("close", () => {
    for (const s of sockets) s?.destroy();
  });
  ws.on("error", () => close());
  return { close };
}

interface PairSide {
  streamId: number;
  /** the client closed its side */
  remoteFin: boolean;
}

interface Pair {
  port: number;
  error?: PairSide;
  data?: PairSide;
  socket?: net.Socket;
  done: boolean;
}

/**
 * The server side of kubectl's SPDY port-forward on `conn` (the upgraded socket, or a WebSocket's byte stream): for each
 * request id an `error` and a `data` stream, each answered with SYN_REPLY; the data stream piped to the backend, an
 * error written to the error stream. PINGs are echoed, SETTINGS and WINDOW_UPDATE accepted and ignored.
 */
export function forwardSpdy(conn: Duplex, target: ForwardTarget): Tunnel {
  const parser = new FrameParser();
  const codec = new HeaderCodec();
  const pairs = new Map<string, Pair>();
  const byStream = new Map<number, { pair: Pair; type: "error" | "data" }>();
  let lastStream = 0;
  let closed = false;
  // frames are handled in order: a SYN_STREAM's headers are decompressed asynchronously
  let queue: Promise<void> = Promise.resolve();

  const write = (b: Buffer) => {
    if (!closed && conn.writable) conn.write(b);
  };
  const close = () => {
    if (closed) return;
    write(goawayFrame(lastStream));
    closed = true;
    for (const p of pairs.values()) p.socket?.destroy();
    codec.close();
    conn.destroy();
  };

  const finish = (pair: Pair, error?: string) => {
    if (pair.done) return;
    pair.done = true;
    pair.socket?.destroy();
    if (pair.data) write(dataFrame(pair.data.streamId, Buffer.alloc(0), true));
    if (pair.error) {
      if (error) write(dataFrame(pair.error.streamId, Buffer.from(error, "utf8")));
      write(dataFrame(pair.error.streamId, Buffer.alloc(0), true));
    }
  };

  const start = (pair: Pair) => {
    const socket = dial(target, pair.port, (text) => finish(pair, text));
    if (!socket) return;
    pair.socket = socket;
    socket.on("data", (chunk: Buffer) => {
      if (pair.data && !pair.done) write(dataFrame(pair.data.streamId, chunk));
    });
    socket.on("end", () => finish(pair));
    socket.on("close", () => finish(pair));
  };

  const onSyn = async (f: Frame & { kind: "control" }) => {
    const streamId = frameStreamId(f);
    lastStream = Math.max(lastStream, streamId);
    const headers = await codec.decompress(synStreamBlock(f));
    const type = headers.streamtype;
    const port = Number(headers.port);
    const requestId = headers.requestid ?? `port-${headers.port}`;
    if ((type !== "error" && type !== "data") || !Number.isInteger(port) || port < 1 || port > 65535) {
      write(rstStreamFrame(streamId, RstStatus.PROTOCOL_ERROR));
      return;
    }
    write(synReplyFrame(streamId, await codec.compress({})));
    let pair = pairs.get(requestId);
    if (!pair) pairs.set(requestId, (pair = { port, done: false }));
    const side: PairSide = { streamId, remoteFin: (f.flags & FLAG_FIN) !== 0 };
    pair[type] = side;
    byStream.set(streamId, { pair, type });
    if (pair.error && pair.data && !pair.socket && !pair.done) start(pair);
  };

  const onData = (f: Frame & { kind: "data" }) => {
    const s = byStream.get(f.streamId);
    if (!s) return;
    if (s.type === "data" && f.data.length) s.pair.socket?.write(f.data);
    if (f.flags & FLAG_FIN) {
      s.pair[s.type]!.remoteFin = true;
      if (s.type === "data") s.pair.socket?.end();
    }
  };

  const onFrame = async (f: Frame) => {
    if (closed) return;
    if (f.kind === "data") return onData(f);
    switch (f.type) {
      case FrameType.SYN_STREAM:
        return onSyn(f);
      case FrameType.PING:
        return write(Buffer.concat([Buffer.from([0x80, 0x03, 0x00, FrameType.PING, 0, 0, 0, 4]), f.data.subarray(0, 4)]));
      case FrameType.RST_STREAM: {
        const s = byStream.get(frameStreamId(f));
        if (s) {
          byStream.delete(frameStreamId(f));
          s.pair.done = true;
          s.pair.socket?.destroy();
        }
        return;
      }
      case FrameType.GOAWAY:
        return close();
      default:
        // SETTINGS, WINDOW_UPDATE, HEADERS, NOOP: nothing to do for port-forward
        return;
    }
  };

  conn.on("data", (chunk: Buffer) => {
    let frames: Frame[];
    try {
      frames = parser.push(chunk);
    } catch {
      return close();
    }
    for (const f of frames) queue = queue.then(() => onFrame(f)).catch(() => close());
  });
  conn.on("close", () => {
    closed = true;
    for (const p of pairs.values()) p.socket?.destroy();
    codec.close();
  });
  conn.on("error", () => close());
  return { close };
}

/**
 * One simulated Target Allocator HTTP(S) server on loopback, with faults (endpoints and transport: docs/target-allocator.md).
 * - upstream: plain HTTP; with `tls`, HTTPS TLS 1.2+ with required client certificates instead.
 * - cloudwatch: HTTPS only, TLS 1.3 minimum, client certificate required and verified against the demo CA.
 */
import http from "node:http";
import https from "node:https";
import type { Socket } from "node:net";
import { TLSSocket } from "node:tls";
import { gzipSync } from "node:zlib";
import type { Flavor } from "@allocation-lens/allocation/model";
import { renderMetrics } from "./metrics";
import { handle } from "./routes";
import { bucketsFor, observe, type HistogramState, type TaState } from "./state";
import { listen } from "../listen";

export interface TaFaults {
  /** ms epoch: refuse every connection (reset) until then */
  outageUntil?: number;
  /** delay every response by this many ms */
  slowMs?: number;
  /** JSON routes return broken payloads: truncated JSON on /jobs and /scrape_configs, wrong types in targets */
  malformed?: boolean;
  /** handled by the engine via the state; ignored here */
  hostile?: boolean;
}

export interface TaServer {
  url: string;
  port: number;
  close(): Promise<void>;
  /** total requests served (refused connections do not count) */
  requests(): number;
  /** the most recent requests (bounded), `path` = the request target with its query */
  requestLog(): { path: string; at: number }[];
}

export interface TaTls {
  caPem: string;
  certPem: string;
  keyPem: string;
}

export interface StartTaServerOptions {
  getState: () => TaState;
  getFaults: () => TaFaults;
  flavor: Flavor;
  /** default 127.0.0.1 */
  host?: string;
  /** default 0 (a free port) */
  port?: number;
  /** required for cloudwatch */
  tls?: TaTls;
  /** the process is down (crash-looping): every connection is refused, as if nothing listened */
  isDown?: () => boolean;
}

const LOG_LIMIT = 1000;

function reset(socket: Socket): void {
  if (typeof socket.resetAndDestroy === "function" && !(socket instanceof TLSSocket)) socket.resetAndDestroy();
  else socket.destroy();
}

export async function startTaServer(opts: StartTaServerOptions): Promise<TaServer> {
  const { flavor } = opts;
  if (flavor === "cloudwatch" && !opts.tls) throw new Error("the cloudwatch TA serves HTTPS only: tls is required");
  const host = opts.host ?? "127.0.0.1";
  const outage = () => (opts.getFaults().outageUntil ?? 0) > Date.now() || (opts.isDown?.() ?? false);

  let served = 0;
  const log: { path: string; at: number }[] = [];
  const durations = new Map<string, HistogramState>();
  const bounds = bucketsFor(flavor);

  const onRequest = (req: http.IncomingMessage, res: http.ServerResponse) => {
    if (outage()) return reset(req.socket);
    const begin = process.hrtime.bigint();
    served++;
    log.push({ path: req.url ?? "", at: Date.now() });
    if (log.length > LOG_LIMIT) log.splice(0, log.length - LOG_LIMIT);
    const faults = opts.getFaults();
    const respond = () => {
      if (res.destroyed) return;
      const state = opts.getState();
      const out = handle(
        { method: req.method ?? "GET", url: req.url ?? "/", accept: req.headers.accept, tls: req.socket instanceof TLSSocket },
        { state, flavor, malformed: !!faults.malformed, renderMetrics: () => renderMetrics(flavor, state, durations) },
      );
      let body: Buffer = Buffer.from(out.body, "utf8");
      const headers: Record<string, string> = { ...out.headers };
      if (out.metrics && /\bgzip\b/.test(String(req.headers["accept-encoding"] ?? ""))) {
        body = gzipSync(body);
        headers["Content-Encoding"] = "gzip";
      }
      headers["Content-Length"] = String(body.length);
      res.on("finish", () => {
        const seconds = Number(process.hrtime.bigint() - begin) / 1e9;
        durations.set(out.route, observe(durations.get(out.route), bounds, seconds));
      });
      res.writeHead(out.status, headers);
      res.end(body);
    };
    if (faults.slowMs && faults.slowMs > 0) setTimeout(respond, faults.slowMs);
    else respond();
  };

  const server = opts.tls
    ? https.createServer(
        {
          key: opts.tls.keyPem,
          cert: opts.tls.certPem,
          ca: opts.tls.caPem,
          requestCert: true,
          rejectUnauthorized: true,
          minVersion: flavor === "cloudwatch" ? "TLSv1.3" : "TLSv1.2",
        },
        onRequest,
      )
    : http.createServer(onRequest);
  // As the real allocators' servers (Go's http.Server with neither IdleTimeout nor ReadTimeout): an idle keep-alive
  // connection stays open, where Node closes it after 5 s; a client polling every 10 s keeps its connections.
  server.keepAliveTimeout = 0;
  // During an outage every incoming connection is reset before any byte (for TLS: before the handshake).
  server.on("connection", (socket: Socket) => {
    if (outage()) reset(socket);
  });
  server.on("tlsClientError", (_err, socket) => socket.destroy());
  server.on("clientError", (_err, socket) => socket.destroy());

  const port = await listen(server, opts.port ?? 0, host);
  const hostPart = host.includes(":") ? `[${host}]` : host;

  return {
    url: `${opts.tls ? "https" : "http"}://${hostPart}:${port}`,
    port,
    requests: () => served,
    requestLog: () => log.slice(),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

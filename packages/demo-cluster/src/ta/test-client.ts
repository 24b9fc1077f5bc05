/** A tiny HTTP(S) client for the tests of this folder: raw paths kept as given, TLS details exposed. */
import http from "node:http";
import https from "node:https";
import type { TLSSocket } from "node:tls";
import { gunzipSync } from "node:zlib";

export interface Reply {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
  protocol?: string | null;
  ms: number;
}

export interface ClientOptions {
  method?: string;
  headers?: Record<string, string>;
  tls?: { ca: string; cert?: string; key?: string; maxVersion?: "TLSv1.2" | "TLSv1.3" };
  timeoutMs?: number;
}

export function request(base: string, path: string, o: ClientOptions = {}): Promise<Reply> {
  const u = new URL(base);
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const common = {
      host: u.hostname,
      port: u.port,
      path, // sent verbatim: no normalisation of %2F or slashes
      method: o.method ?? "GET",
      headers: { Accept: "application/json", ...o.headers },
      agent: false as const,
      timeout: o.timeoutMs ?? 10_000,
    };
    const req =
      u.protocol === "https:"
        ? https.request({ ...common, ca: o.tls?.ca, cert: o.tls?.cert, key: o.tls?.key, maxVersion: o.tls?.maxVersion, servername: "localhost" })
        : http.request(common);
    req.on("timeout", () => req.destroy(new Error("timeout")));
    req.on("error", reject);
    req.on("response", (res) => {
      const protocol = u.protocol === "https:" ? (res.socket as TLSSocket).getProtocol?.() : undefined;
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("error", reject);
      res.on("end", () => {
        let buf = Buffer.concat(chunks);
        if (res.headers["content-encoding"] === "gzip") buf = gunzipSync(buf);
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: buf.toString("utf8"), protocol, ms: Date.now() - started });
      });
    });
    req.end();
  });
}

import "server-only";
/**
 * What the TA client and the Prometheus client share: reading a configured file (certificate, key, token) into a
 * SourceError that names the file and the fix, one keep-alive agent per endpoint with the configured TLS (mTLS when a
 * client certificate is given), and a request bounded in time and size whose failures are SourceErrors.
 */
import fs from "node:fs";
import http from "node:http";
import https from "node:https";
import { urlToHttpOptions } from "node:url";
import { SourceError } from "@/lib/source-error";
import type { TlsConfig } from "@/lib/config/schema";

/** TLS error codes and messages: a failure of the handshake or of certificate checks rather than of the network. */
const TLS_CODES = /CERT|TLS|SSL|ALERT|HANDSHAKE|SELF_SIGNED|UNABLE_TO_VERIFY|ERR_SSL/i;

/** The file's bytes, or a `config` SourceError naming `what`, the path and why (`hint`: where in the configuration). */
export function readConfiguredFile(path: string, what: string, source: string, hint: string): Buffer {
  try {
    return fs.readFileSync(path);
  } catch (e) {
    throw new SourceError({
      source,
      kind: "config",
      message: `cannot read the ${what} file ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`,
      hint,
    });
  }
}

export function clientAgent(
  base: URL,
  tls: TlsConfig | undefined,
  options: http.AgentOptions,
  read: (path: string, what: string) => Buffer,
  maxVersion?: "TLSv1.3",
): http.Agent {
  if (base.protocol !== "https:") return new http.Agent(options);
  const file = (path: string | undefined, what: string) => (path ? read(path, what) : undefined);
  return new https.Agent({
    ...options,
    ca: file(tls?.ca, "CA certificate"),
    cert: file(tls?.cert, "client certificate"),
    key: file(tls?.key, "client key"),
    servername: tls?.serverName,
    rejectUnauthorized: !tls?.insecureSkipVerify,
    minVersion: "TLSv1.2",
    ...(maxVersion ? { maxVersion } : {}),
  });
}

export interface BoundedAnswer {
  status: number;
  body: Buffer;
  contentType: string;
}

/** What a failed request says to do, per client: each names its own configuration keys. */
export interface RequestHints {
  tooLarge: string;
  timeout: string;
  tls: string;
  network?: string;
}

type BoundedRequestSpec = { path: string; method: "GET" | "POST"; headers: Record<string, string>; body?: string };
type BoundedLimits = { source: string; timeoutMs: number; maxBytes: number; hints: RequestHints };

/**
 * One HTTP(S) request to `base` (its scheme, host and port only; `path` is sent as given) through `agent`, with a timeout
 * and a response-size limit. Any status resolves: what a status means is the caller's. Network, TLS, timeout and size
 * failures reject with a SourceError carrying the caller's hint.
 *
 * A keep-alive socket the peer closed while it sat idle in the pool (a restart, an idle timeout on the other side) fails
 * the next request written to it with ECONNRESET before any answer: that request is sent once more on a fresh socket, as
 * Node's documentation advises, so a source is not marked broken for a connection it never asked to keep. Every request
 * these clients send is a read, so sending it twice changes nothing. A reset on a fresh socket is reported as it is.
 */
export async function boundedRequest(base: URL, agent: http.Agent, request: BoundedRequestSpec, limits: BoundedLimits): Promise<BoundedAnswer> {
  const first = await attempt(base, agent, request, limits);
  if (!("staleSocket" in first)) return first;
  const second = await attempt(base, agent, request, limits);
  if ("staleSocket" in second) throw second.staleSocket;
  return second;
}

/** One try; a reset of a reused socket before any answer comes back as `staleSocket` instead of rejecting. */
function attempt(base: URL, agent: http.Agent, request: BoundedRequestSpec, limits: BoundedLimits): Promise<BoundedAnswer | { staleSocket: SourceError }> {
  const { source, timeoutMs, maxBytes, hints } = limits;
  const lib = base.protocol === "https:" ? https : http;
  return new Promise((resolve, reject) => {
    let done = false;
    let answered = false;
    const fail = (err: SourceError) => {
      if (done) return;
      done = true;
      req.destroy();
      reject(err);
    };
    const req = lib.request({ ...urlToHttpOptions(base), path: request.path, method: request.method, agent, headers: request.headers }, (res) => {
      answered = true;
      const chunks: Buffer[] = [];
      let size = 0;
      res.on("data", (c: Buffer) => {
        size += c.length;
        if (size > maxBytes) {
          res.destroy();
          fail(new SourceError({ source, kind: "too_large", message: `answer larger than ${maxBytes} bytes`, hint: hints.tooLarge }));
        } else chunks.push(c);
      });
      res.on("end", () => {
        if (done) return;
        done = true;
        resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks), contentType: String(res.headers["content-type"] ?? "") });
      });
      res.on("error", (e) => fail(classifyRequestError(source, e, hints)));
    });
    req.setTimeout(timeoutMs, () => fail(new SourceError({ source, kind: "timeout", message: `no answer within ${timeoutMs / 1000}s`, hint: hints.timeout })));
    req.on("error", (e: Error & { code?: string }) => {
      if (!done && !answered && req.reusedSocket && e.code === "ECONNRESET") {
        done = true;
        req.destroy();
        resolve({ staleSocket: classifyRequestError(source, e, hints) });
      } else fail(classifyRequestError(source, e, hints));
    });
    req.end(request.body);
  });
}

function classifyRequestError(source: string, e: Error & { code?: string }, hints: RequestHints): SourceError {
  if (e instanceof SourceError) return e;
  const code = e.code ?? "";
  if (TLS_CODES.test(code) || TLS_CODES.test(e.message)) {
    return new SourceError({ source, kind: "tls", message: `TLS failed: ${e.message}`, hint: hints.tls });
  }
  return new SourceError({ source, kind: "network", message: `${code || "network error"}: ${e.message}`, hint: hints.network });
}

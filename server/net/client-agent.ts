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
import { unsendableHeader } from "@/lib/http/header-check";
import type { TlsConfig } from "@/lib/config/schema";

/** TLS error codes and messages: a failure of the handshake or of certificate checks rather than of the network. */
const TLS_CODES = /CERT|TLS|SSL|ALERT|HANDSHAKE|SELF_SIGNED|UNABLE_TO_VERIFY|ERR_SSL/i;
const NETWORK_ERRNO = /^(ECONNRESET|ECONNREFUSED|ECONNABORTED|EPIPE|ETIMEDOUT|EHOSTUNREACH|ENETUNREACH)$/;

/**
 * The file's bytes, or a `config` SourceError naming `what` and why (the errno code) with `hint` (where in the
 * configuration). The path goes in the error's `detail`, for the server log: answers say which file, not where it is.
 */
export function readConfiguredFile(path: string, what: string, source: string, hint: string): Buffer {
  try {
    return fs.readFileSync(path);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new SourceError({
      source,
      kind: "config",
      message: `cannot read the configured ${what} file (${code ?? "unreadable"}; see the server log)`,
      hint,
      detail: `${what} file ${path}: ${code ?? (e as Error).message}`,
    });
  }
}

/** Printable ASCII of the first bytes of an error body, for the server log (SourceError `detail`). */
export function bodyExcerpt(body: Buffer, max = 120): string {
  return body
    .subarray(0, max)
    .toString("latin1")
    .replace(/[^\x20-\x7e]+/g, " ")
    .trim();
}

/** The certificate material of a TLS client: read from the configured files, or from a Secret (server/ta/secret-tls.ts). */
export interface TlsClientMaterial {
  ca?: Buffer;
  cert?: Buffer;
  key?: Buffer;
}

/** The options of every TLS client here: the material, verification unless insecureSkipVerify, TLS 1.2 at least. */
export function tlsClientOptions(tls: TlsConfig | undefined, m: TlsClientMaterial, maxVersion?: "TLSv1.3"): https.AgentOptions {
  return {
    ca: m.ca,
    cert: m.cert,
    key: m.key,
    rejectUnauthorized: !tls?.insecureSkipVerify,
    minVersion: "TLSv1.2",
    ...(maxVersion ? { maxVersion } : {}),
  };
}

/** A keep-alive agent for `base`: plain HTTP, or TLS with `material` and the configured server name. */
export function clientAgentWith(base: URL, tls: TlsConfig | undefined, options: http.AgentOptions, material: TlsClientMaterial, maxVersion?: "TLSv1.3"): http.Agent {
  if (base.protocol !== "https:") return new http.Agent(options);
  return new https.Agent({ ...options, ...tlsClientOptions(tls, material, maxVersion), servername: tls?.serverName });
}

/** The configured TLS files of an https `base`, read with `read` (which names the file and the fix when it fails); none for http. */
export function readTlsMaterial(base: URL, tls: TlsConfig | undefined, read: (path: string, what: string) => Buffer): TlsClientMaterial {
  if (base.protocol !== "https:") return {};
  const file = (path: string | undefined, what: string) => (path ? read(path, what) : undefined);
  return { ca: file(tls?.ca, "CA certificate"), cert: file(tls?.cert, "client certificate"), key: file(tls?.key, "client key") };
}

export function clientAgent(
  base: URL,
  tls: TlsConfig | undefined,
  options: http.AgentOptions,
  read: (path: string, what: string) => Buffer,
  maxVersion?: "TLSv1.3",
): http.Agent {
  return clientAgentWith(base, tls, options, readTlsMaterial(base, tls, read), maxVersion);
}

export interface BoundedAnswer {
  status: number;
  /** the body, or empty when a sink took it */
  body: Buffer;
  /** bytes of the body read */
  size: number;
  contentType: string;
}

/**
 * Takes an answer's body chunk by chunk as it arrives, instead of its being read into one buffer. A chunk may be a view of
 * a buffer the connection reuses (server/net/fast-http.ts): it is valid during `write` only, and copied if kept.
 */
export interface BodySink {
  write(chunk: Buffer): void;
}

/** What a failed request says to do, per client: each names its own configuration keys. */
export interface RequestHints {
  tooLarge: string;
  timeout: string;
  tls: string;
  network?: string;
}

type BoundedRequestSpec = { path: string; method: "GET" | "POST"; headers: Record<string, string>; body?: string };

/** What the requests of one poll may still read, all together; `exceeded` is the error when they need more. */
export interface ByteBudget {
  remaining: number;
  exceeded(): SourceError;
}

export type BoundedLimits = {
  source: string;
  /** a deadline for the whole request, from sending it to the answer's last byte (not an idle timeout) */
  timeoutMs: number;
  maxBytes: number;
  hints: RequestHints;
  /** shared by the requests of one poll: each byte read counts against it */
  budget?: ByteBudget;
  /** cancels the request (a poll's deadline, a failure that ends the poll); its `reason` is the rejection */
  signal?: AbortSignal;
  /**
   * Called once per answer (a retry on a fresh socket is a new answer) with its status: a sink returned takes the body's
   * chunks as they arrive, each after the size limits have counted it; none, and the body is read whole as usual.
   */
  sink?: (status: number) => BodySink | undefined;
};

/**
 * One HTTP(S) request to `base` (its scheme, host and port only; `path` is sent as given) through `agent`, with a
 * deadline and a response-size limit. Any status resolves: what a status means is the caller's. Network, TLS, deadline
 * and size failures reject with a SourceError carrying the caller's hint.
 *
 * The deadline runs from the start to the last byte of the answer: a peer that sends its headers and then a byte every
 * second is cut off when it is over, as one that never answers is. A declared Content-Length over the limits fails before
 * the body is read; otherwise the body is read into one buffer of that length (no second copy), or kept as its chunks
 * and joined once when the length is not declared, or given chunk by chunk to the caller's sink. An answer cut off before
 * its end (the peer closes the connection) fails as a network error, whatever a sink has been given of it.
 *
 * A keep-alive socket the peer closed while it sat idle in the pool (a restart, an idle timeout on the other side) fails
 * the next request written to it with ECONNRESET before any answer: that request is sent once more on a fresh socket, as
 * Node's documentation advises, so a source is not marked broken for a connection it never asked to keep. Every request
 * these clients send is a read, so sending it twice changes nothing. A reset on a fresh socket is reported as it is. The
 * second try has what is left of the deadline.
 */
export async function boundedRequest(base: URL, agent: http.Agent, request: BoundedRequestSpec, limits: BoundedLimits): Promise<BoundedAnswer> {
  refuseUnsendable(request.headers, limits.source);
  return againOnStaleSocket(limits.timeoutMs, (deadline) => attempt(base, agent, request, limits, deadline));
}

/** One try of a request: its answer, or `staleSocket` when a reused keep-alive socket was reset before any answer. */
export type Attempt = (deadline: number, fresh: boolean) => Promise<BoundedAnswer | { staleSocket: SourceError }>;

/**
 * The stale-socket rule of both clients (above; server/net/fast-http.ts): one try, and when a reused socket turned out
 * stale, one more on a fresh socket (`fresh` true) within what is left of the same deadline.
 */
export async function againOnStaleSocket(timeoutMs: number, attempt: Attempt): Promise<BoundedAnswer> {
  const deadline = performance.now() + timeoutMs;
  const first = await attempt(deadline, false);
  if (!("staleSocket" in first)) return first;
  const second = await attempt(deadline, true);
  if ("staleSocket" in second) throw second.staleSocket;
  return second;
}

/** An answer over `limits.maxBytes`: the error both clients give, with the key that sets the limit in its hint. */
export const tooLargeError = ({ source, maxBytes, hints }: Pick<BoundedLimits, "source" | "maxBytes" | "hints">): SourceError =>
  new SourceError({ source, kind: "too_large", message: `answer larger than ${maxBytes} bytes`, hint: hints.tooLarge });

/**
 * Throws a `config` SourceError naming the request header that cannot be sent (a line break or another control character
 * in its value: it would end the header and start another), never its value. Node's client would throw a TypeError of
 * its own; a client that writes the request itself (server/net/fast-http.ts) would send it.
 */
export function refuseUnsendable(headers: Record<string, string>, source: string): void {
  const unsendable = unsendableHeader(headers);
  if (unsendable === null) return;
  throw new SourceError({ source, kind: "config", message: `the ${unsendable} request header holds a character a header cannot carry (a line break or another control character)` });
}

/** Why a cancelled request failed: the signal's reason when it is a SourceError (the poll's deadline or budget). */
export const abortReason = (signal: AbortSignal, source: string): SourceError =>
  signal.reason instanceof SourceError ? signal.reason : new SourceError({ source, kind: "timeout", message: "the request was cancelled" });

/** One try; a reset of a reused socket before any answer comes back as `staleSocket` instead of rejecting. */
function attempt(
  base: URL,
  agent: http.Agent,
  request: BoundedRequestSpec,
  limits: BoundedLimits,
  deadline: number,
): Promise<BoundedAnswer | { staleSocket: SourceError }> {
  const { source, timeoutMs, maxBytes, hints, budget, signal, sink: sinkFor } = limits;
  const lib = base.protocol === "https:" ? https : http;
  if (signal?.aborted) return Promise.reject(abortReason(signal, source));
  return new Promise((resolve, reject) => {
    let done = false;
    let answered = false;
    const finish = () => {
      done = true;
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
    };
    const fail = (err: SourceError) => {
      if (done) return;
      finish();
      req.destroy();
      reject(err);
    };
    const onAbort = () => fail(abortReason(signal!, source));
    const tooLarge = () => tooLargeError(limits);
    const req = lib.request({ ...urlToHttpOptions(base), path: request.path, method: request.method, agent, headers: request.headers }, (res) => {
      answered = true;
      const declared = Number(res.headers["content-length"]);
      const known = res.headers["content-length"] !== undefined && Number.isSafeInteger(declared) && declared >= 0;
      if (known && declared > maxBytes) return fail(tooLarge());
      if (known && budget && declared > budget.remaining) return fail(budget.exceeded());
      const sink = sinkFor?.(res.statusCode ?? 0);
      // the caller's sink; else one buffer of the declared length, filled as chunks arrive; else the chunks, joined once
      const whole = known && !sink ? Buffer.allocUnsafe(declared) : null;
      const chunks: Buffer[] = [];
      let size = 0;
      res.on("data", (c: Buffer) => {
        if (done) return;
        size += c.length;
        if (budget) budget.remaining -= c.length;
        if (size > maxBytes) fail(tooLarge());
        else if (budget && budget.remaining < 0) fail(budget.exceeded());
        else if (known && size > declared) fail(tooLarge());
        else if (sink) {
          try {
            sink.write(c);
          } catch (e) {
            fail(new SourceError({ source, kind: "parse", message: `reading the answer failed: ${(e as Error).message}` }));
          }
        } else if (whole) c.copy(whole, size - c.length);
        else chunks.push(c);
      });
      res.on("end", () => {
        if (done) return;
        finish();
        const body = whole ? (size === whole.length ? whole : whole.subarray(0, size)) : chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size);
        resolve({ status: res.statusCode ?? 0, body, size, contentType: String(res.headers["content-type"] ?? "") });
      });
      res.on("error", (e) => fail(classifyRequestError(source, e, hints)));
    });
    const timer = setTimeout(
      () => fail(new SourceError({ source, kind: "timeout", message: `no complete answer within ${timeoutMs / 1000} s`, hint: hints.timeout })),
      Math.max(0, deadline - performance.now()),
    );
    signal?.addEventListener("abort", onAbort, { once: true });
    req.on("error", (e: Error & { code?: string }) => {
      if (!done && !answered && req.reusedSocket && e.code === "ECONNRESET") {
        finish();
        req.destroy();
        resolve({ staleSocket: classifyRequestError(source, e, hints) });
      } else fail(classifyRequestError(source, e, hints));
    });
    req.end(request.body);
  });
}

export function classifyRequestError(source: string, e: Error & { code?: string }, hints: RequestHints): SourceError {
  if (e instanceof SourceError) return e;
  const code = e.code ?? "";
  // A connection reset, refused or cut before the TLS handshake finished is the network's (a TA going away, a proxy in
  // between): Node words it "... disconnected before secure TLS connection was established", but its code is the
  // socket's. A TA that refuses this client's certificate says so with an alert of its own code (ERR_SSL_...).
  if (!NETWORK_ERRNO.test(code) && (TLS_CODES.test(code) || TLS_CODES.test(e.message))) {
    return new SourceError({ source, kind: "tls", message: `TLS failed: ${e.message}`, hint: hints.tls });
  }
  return new SourceError({ source, kind: "network", message: `${code || "network error"}: ${e.message}`, hint: hints.network });
}

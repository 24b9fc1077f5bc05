import "server-only";
/**
 * GET requests to one TA reached directly, over keep-alive connections that each read into one reused buffer (the
 * `onread` option of net and tls sockets): no allocation per piece of an answer, where Node's HTTP client allocates two
 * (the TLS layer's read buffer and the parser's copy of the body piece). At 5,000 collectors a poll reads ~680 MB, and
 * those buffers, outside the heap, made V8 collect every ~2 MB allocated (docs/target-allocator.md, "What a poll costs").
 * The answer is read by lib/http/response-reader.ts.
 *
 * Same contract as boundedRequest (server/net/client-agent.ts), which stays the path for every other reach and client:
 * a deadline from sending to the last byte, a response-size limit (a declared length over it fails before the body is
 * read), the poll's byte budget, cancellation, a stale keep-alive socket retried once on a fresh one, and failures as
 * SourceErrors with the caller's hints. A body goes to the caller's sink as views of the connection's buffer, valid
 * during `write` only; without a sink it is copied into one buffer. An answer the reader refuses (no length, a 1xx, a
 * malformed head or chunk) fails as a `parse` error naming why.
 */
import net from "node:net";
import tls from "node:tls";
import { SourceError } from "@/lib/source-error";
import { HttpResponseReader, type ResponseHead } from "@/lib/http/response-reader";
import { abortReason, againOnStaleSocket, classifyRequestError, refuseUnsendable, tooLargeError, type BoundedAnswer, type BoundedLimits, type BodySink } from "@/server/net/client-agent";

/** Bytes read from the socket at a time (TLS hands over at most one 16 KiB record per read). */
const READ_BUFFER = 64 * 1024;

interface Exchange {
  reader: HttpResponseReader;
  /** bytes of the answer seen (head included): none means a reused socket may have been stale */
  seen: number;
  onData(buf: Uint8Array, start: number, end: number): void;
  onClose(error: Error | null): void;
}

class Connection {
  readonly socket: net.Socket;
  private readonly buffer = Buffer.allocUnsafe(READ_BUFFER);
  exchange: Exchange | null = null;
  closed = false;
  used = false;
  readonly ready: Promise<void>;

  /** `tlsOptions`: with the client's one TLS context and the session to resume; `session`: told each TLS session the peer gives, and of a failure (undefined) */
  constructor(base: URL, tlsOptions: tls.ConnectionOptions | null, session?: (s: Buffer | undefined) => void) {
    const onread = { buffer: this.buffer, callback: (n: number, buf: Buffer) => this.read(n, buf) };
    const port = Number(base.port) || (base.protocol === "https:" ? 443 : 80);
    const host = base.hostname.replace(/^\[|\]$/g, "");
    // tls.connect hands `onread` to the socket it creates (Node's _tls_wrap), though its typings leave it out
    this.socket = tlsOptions ? tls.connect({ ...tlsOptions, host, port, onread } as tls.ConnectionOptions) : net.connect({ host, port, onread });
    if (session) {
      this.socket.on("session", session);
      // as https.Agent does: a session is not offered again after a connection that failed (it may be why)
      this.socket.once("error", () => session(undefined));
    }
    this.socket.setNoDelay(true);
    this.ready = new Promise((resolve, reject) => {
      this.socket.once(tlsOptions ? "secureConnect" : "connect", () => resolve());
      this.socket.once("error", reject);
    });
    this.ready.catch(() => {});
    this.socket.on("error", (e) => this.close(e));
    this.socket.on("close", () => this.close(null));
  }

  private read(n: number, buf: Buffer): boolean {
    const x = this.exchange;
    if (!x) {
      // bytes nobody asked for: the connection is not in step with its answers any more
      this.socket.destroy();
      return false;
    }
    x.seen += n;
    try {
      x.onData(buf, 0, n);
    } catch (e) {
      this.close(e as Error);
    }
    return true;
  }

  close(error: Error | null): void {
    if (this.closed) return;
    this.closed = true;
    this.socket.destroy();
    const x = this.exchange;
    this.exchange = null;
    x?.onClose(error);
  }
}

/**
 * Where a new connection's TLS costs go, and how this client keeps them to one handshake per TA: tls.connect given the
 * PEM files builds a new TLS context for every connection (the CA, the certificate and the key parsed again), and a full
 * handshake signs with the client key each time. A dashboard polling 20 clusters whose TAs close idle connections
 * between polls spent about a quarter of its poll thread there. So the context is built once, on the first connection,
 * and every later connection offers the last session the TA gave (TLS resumption, as Node's https.Agent does): the TA
 * resumes it without a certificate exchange, or falls back to a full handshake (a new TA certificate, a restart).
 */
export class FastHttpClient {
  private readonly idle: Connection[] = [];
  private context: tls.SecureContext | null = null;
  private session: Buffer | undefined;

  /**
   * @param base the TA's scheme, host and port
   * @param tlsOptions the TLS client options for https (CA, client certificate and key, server name, versions); null for http
   */
  constructor(
    private readonly base: URL,
    private readonly tlsOptions: tls.ConnectionOptions | null,
  ) {}

  /** The options of a new TLS connection: the one context (built on first use, so a bad file fails as a connection does), the last session. */
  private tlsFor(o: tls.ConnectionOptions): tls.ConnectionOptions {
    const { ca, cert, key, pfx, passphrase, minVersion, maxVersion, ...rest } = o;
    this.context ??= tls.createSecureContext({ ca, cert, key, pfx, passphrase, minVersion, maxVersion });
    return { ...rest, minVersion, maxVersion, secureContext: this.context, session: this.session };
  }

  /** One GET of `path` (sent as given) with `headers`, within `limits`. */
  async get(path: string, headers: Record<string, string>, limits: BoundedLimits): Promise<BoundedAnswer> {
    refuseUnsendable(headers, limits.source);
    return againOnStaleSocket(limits.timeoutMs, (deadline, fresh) => this.attempt(path, headers, limits, deadline, fresh));
  }

  close(): void {
    for (const c of this.idle.splice(0)) c.close(null);
  }

  private connection(fresh: boolean): Connection {
    if (!fresh) {
      while (this.idle.length) {
        const c = this.idle.pop()!;
        if (!c.closed) return c;
      }
    }
    if (!this.tlsOptions) return new Connection(this.base, null);
    return new Connection(this.base, this.tlsFor(this.tlsOptions), (session) => (this.session = session));
  }

  private attempt(path: string, headers: Record<string, string>, limits: BoundedLimits, deadline: number, fresh = false): Promise<BoundedAnswer | { staleSocket: SourceError }> {
    const { source, timeoutMs, maxBytes, hints, budget, signal, sink: sinkFor } = limits;
    if (signal?.aborted) return Promise.reject(abortReason(signal, source));
    const conn = this.connection(fresh);
    const reused = conn.used;
    conn.used = true;
    return new Promise((resolve, reject) => {
      let done = false;
      let size = 0;
      let sink: BodySink | undefined;
      let whole: Buffer | null = null;
      const pieces: Buffer[] = [];
      const finish = () => {
        done = true;
        clearTimeout(timer);
        signal?.removeEventListener("abort", onAbort);
        conn.exchange = null;
      };
      const fail = (err: SourceError) => {
        if (done) return;
        finish();
        conn.close(null);
        reject(err);
      };
      const onAbort = () => fail(abortReason(signal!, source));
      const tooLarge = () => tooLargeError(limits);
      const reader = new HttpResponseReader();
      let head: ResponseHead | null = null;
      const body = (buf: Uint8Array, start: number, end: number) => {
        if (done) return;
        const n = end - start;
        size += n;
        if (budget) budget.remaining -= n;
        if (size > maxBytes) return fail(tooLarge());
        if (budget && budget.remaining < 0) return fail(budget.exceeded());
        const piece = Buffer.from(buf.buffer, buf.byteOffset + start, n);
        if (sink) {
          try {
            sink.write(piece);
          } catch (e) {
            fail(new SourceError({ source, kind: "parse", message: `reading the answer failed: ${(e as Error).message}` }));
          }
        } else if (whole) piece.copy(whole, size - n);
        else pieces.push(Buffer.from(piece));
      };
      /** the head has arrived: its limits, and where its body goes; false when that failed the request */
      const started = (): boolean => {
        if (head) return true;
        head = reader.head!;
        const declared = head.contentLength;
        if (declared !== null && declared > maxBytes) return (fail(tooLarge()), false);
        if (declared !== null && budget && declared > budget.remaining) return (fail(budget.exceeded()), false);
        if (head.status < 400) sink = sinkFor?.(head.status);
        if (!sink && declared !== null) whole = Buffer.allocUnsafe(declared);
        return true;
      };
      conn.exchange = {
        reader,
        seen: 0,
        onData: (buf, start, end) => {
          if (done) return;
          const stop = reader.feed(buf, start, end, (b, s, e) => {
            if (!done && started()) body(b, s, e);
          });
          if (done) return;
          if (reader.failed) return fail(new SourceError({ source, kind: "parse", message: `the answer is not HTTP this client reads: ${reader.error}` }));
          if (reader.head && !started()) return;
          if (reader.done) {
            finish();
            if (stop < end || !head!.keepAlive) conn.close(null);
            else this.idle.push(conn);
            const buffer = whole ?? (pieces.length === 1 ? pieces[0] : Buffer.concat(pieces, size));
            resolve({ status: head!.status, body: sink ? Buffer.alloc(0) : buffer, size, contentType: head!.headers.get("content-type") ?? "" });
          }
        },
        onClose: (error) => {
          if (done) return;
          if (reused && !reader.head && exchange.seen === 0) {
            // a keep-alive socket the TA closed while it sat idle: the caller tries once more on a fresh one
            finish();
            resolve({ staleSocket: classifyRequestError(source, error ?? Object.assign(new Error("socket hang up"), { code: "ECONNRESET" }), hints) });
            return;
          }
          fail(error ? classifyRequestError(source, error, hints) : new SourceError({ source, kind: "network", message: "ECONNRESET: the connection closed before the answer ended", hint: hints.network }));
        },
      };
      const exchange = conn.exchange;
      const timer = setTimeout(
        () => fail(new SourceError({ source, kind: "timeout", message: `no complete answer within ${timeoutMs / 1000} s`, hint: hints.timeout })),
        Math.max(0, deadline - performance.now()),
      );
      signal?.addEventListener("abort", onAbort, { once: true });
      const host = this.base.host;
      const lines = [`GET ${path} HTTP/1.1`, `Host: ${host}`, ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`), "", ""];
      conn.ready.then(
        () => {
          if (!done) conn.socket.write(lines.join("\r\n"));
        },
        (e: Error) => fail(classifyRequestError(source, e, hints)),
      );
    });
  }
}

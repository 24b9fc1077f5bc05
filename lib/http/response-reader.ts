/**
 * An HTTP/1.1 response read from its bytes as they arrive (pure logic; server/net/fast-http.ts feeds it a connection's
 * bytes). It exists so that a TA's answers can be read from one reused buffer per connection, with no allocation per
 * piece of the body: Node's own client copies every piece of a body into a new buffer, and at 5,000 collectors those
 * copies and the TLS layer's read buffers are 1.4 GB of short-lived memory outside the heap per poll, which V8 answers
 * with a collection every ~2 MB allocated (docs/target-allocator.md, "What a poll costs").
 *
 * It reads what a TA (Go's net/http, or Node's) sends to a GET: a status line, headers, and a body framed by
 * `Content-Length` or by `Transfer-Encoding: chunked` (Go chunks any answer it did not buffer whole; chunk extensions
 * and trailers are skipped). Anything else is refused with a reason, never guessed at: a body framed by the end of the
 * connection, a 1xx answer, a transfer coding other than chunked alone, several or invalid lengths, a malformed line,
 * a head over `maxHeadBytes`. Body bytes are handed to the caller as ranges of the fed buffer, in order, never copied.
 */

export interface ResponseHead {
  status: number;
  /** header names in lower case; a repeated header's values joined with ", " */
  headers: Map<string, string>;
  /** the body's declared length, or null when chunked */
  contentLength: number | null;
  /** whether the connection can carry another request after this answer */
  keepAlive: boolean;
}

/** Called with body bytes buf[start..end): valid during the call only (the buffer is reused). */
export type BodyRange = (buf: Uint8Array, start: number, end: number) => void;

const CR = 0x0d;
const LF = 0x0a;

const enum State {
  Head,
  Body,
  ChunkSize,
  ChunkData,
  ChunkDataEnd,
  Trailers,
  Done,
  Failed,
}

/** The longest chunk-size line or trailer line kept across reads. */
const MAX_LINE = 4096;

export class HttpResponseReader {
  private state = State.Head;
  /** bytes of the head, or of a chunk-size or trailer line, while it is incomplete */
  private line: number[] = [];
  private headBytes = 0;
  /** body bytes (or bytes of the current chunk) still to come */
  private remaining = 0;
  head: ResponseHead | null = null;
  /** why the answer was refused (set with the Failed state) */
  error: string | null = null;

  constructor(private readonly maxHeadBytes = 64 * 1024) {}

  /** Whether the whole answer has been read. */
  get done(): boolean {
    return this.state === State.Done;
  }

  get failed(): boolean {
    return this.state === State.Failed;
  }

  /**
   * Reads buf[from..to). Returns where the answer ended in it (bytes after that belong to no answer), or `to` when it
   * did not end there. After a failure (see `error`), returns -1 and reads nothing more.
   */
  feed(buf: Uint8Array, from: number, to: number, onBody: BodyRange): number {
    let p = from;
    while (p < to) {
      switch (this.state) {
        case State.Head: {
          // the head ends at the first empty line
          const start = p;
          for (; p < to; p++) {
            const c = buf[p];
            this.line.push(c);
            const n = this.line.length;
            if (c === LF && n >= 4 && this.line[n - 2] === CR && this.line[n - 3] === LF && this.line[n - 4] === CR) break;
          }
          this.headBytes += Math.min(p + 1, to) - start;
          if (this.headBytes > this.maxHeadBytes) return this.fail(`the answer's head is over ${this.maxHeadBytes} bytes`);
          if (p === to) return to;
          p++;
          const head = parseHead(String.fromCharCode(...this.line.slice(0, -4)));
          this.line = [];
          if (typeof head === "string") return this.fail(head);
          this.head = head;
          if (head.contentLength === null) this.state = State.ChunkSize;
          else if (head.contentLength === 0) return this.finish(p);
          else {
            this.remaining = head.contentLength;
            this.state = State.Body;
          }
          break;
        }
        case State.Body:
        case State.ChunkData: {
          const end = Math.min(to, p + this.remaining);
          onBody(buf, p, end);
          this.remaining -= end - p;
          p = end;
          if (this.remaining === 0) {
            if (this.state === State.Body) return this.finish(p);
            this.state = State.ChunkDataEnd;
          }
          break;
        }
        case State.ChunkDataEnd:
        case State.ChunkSize:
        case State.Trailers: {
          const end = this.takeLine(buf, p, to);
          if (end < 0) return (this.state as State) === State.Failed ? -1 : to;
          p = end;
          const text = String.fromCharCode(...this.line);
          this.line = [];
          if (this.state === State.ChunkDataEnd) {
            if (text !== "") return this.fail("a chunk does not end where its size says");
            this.state = State.ChunkSize;
          } else if (this.state === State.ChunkSize) {
            // size [; extensions]
            const m = /^([0-9A-Fa-f]{1,12})[ \t]*(;.*)?$/.exec(text);
            if (!m) return this.fail("a chunk size is not a hexadecimal number");
            const size = parseInt(m[1], 16);
            if (size === 0) this.state = State.Trailers;
            else {
              this.remaining = size;
              this.state = State.ChunkData;
            }
          } else if (text === "") return this.finish(p);
          else if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+:/.test(text)) return this.fail("a trailer line is not a header");
          break;
        }
        case State.Done:
          return p;
        case State.Failed:
          return -1;
      }
    }
    return this.state === State.Done ? p : to;
  }

  /** Reads a CRLF-terminated line from buf[p..to) into `line`; the index after it, or -1 when it goes on (or failed). */
  private takeLine(buf: Uint8Array, p: number, to: number): number {
    for (; p < to; p++) {
      const c = buf[p];
      if (c === LF) {
        if (this.line.at(-1) !== CR) {
          this.fail("a line does not end with CRLF");
          return -1;
        }
        this.line.pop();
        return p + 1;
      }
      this.line.push(c);
      if (this.line.length > MAX_LINE) {
        this.fail(`a chunk-size or trailer line is over ${MAX_LINE} bytes`);
        return -1;
      }
    }
    return -1;
  }

  private finish(p: number): number {
    this.state = State.Done;
    return p;
  }

  private fail(reason: string): number {
    this.state = State.Failed;
    this.error = reason;
    this.line = [];
    return -1;
  }
}

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** The head's status line and headers (`text`: the head without its final empty line), or why it is refused. */
export function parseHead(text: string): ResponseHead | string {
  const lines = text.split("\r\n");
  const status = /^HTTP\/1\.([01]) ([1-5][0-9][0-9])(?: .*)?$/.exec(lines[0]);
  if (!status) return "the status line is not HTTP/1.x";
  const code = Number(status[2]);
  if (code < 200) return `a ${code} answer (informational answers are not read here)`;
  const headers = new Map<string, string>();
  for (const line of lines.slice(1)) {
    const colon = line.indexOf(":");
    if (colon <= 0 || !TOKEN.test(line.slice(0, colon))) return "a header line is malformed";
    const name = line.slice(0, colon).toLowerCase();
    const value = line.slice(colon + 1).trim();
    headers.set(name, headers.has(name) ? `${headers.get(name)}, ${value}` : value);
  }
  const te = headers.get("transfer-encoding");
  const cl = headers.get("content-length");
  let contentLength: number | null;
  if (te !== undefined) {
    if (te.toLowerCase() !== "chunked") return `transfer-encoding "${te.slice(0, 40)}" (only chunked alone is read here)`;
    if (cl !== undefined) return "both transfer-encoding and content-length";
    contentLength = null;
  } else if (cl !== undefined && /^[0-9]{1,15}$/.test(cl)) contentLength = Number(cl);
  else if (cl !== undefined) return "the content-length is not one number";
  else if (code === 204 || code === 304) contentLength = 0;
  else return "the answer has no length (it would end with the connection)";
  const connection = (headers.get("connection") ?? "").toLowerCase();
  const keepAlive = status[1] === "1" ? !/\bclose\b/.test(connection) : /\bkeep-alive\b/.test(connection);
  return { status: code, headers, contentLength, keepAlive };
}

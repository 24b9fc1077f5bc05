/** The part of the `ws` package (which ships no types) that the port-forward tunnel and its tests use. */
declare module "ws" {
  import type { EventEmitter } from "node:events";
  import type { ClientRequest, IncomingMessage } from "node:http";
  import type { SecureContextOptions } from "node:tls";

  namespace WebSocket {
    interface ClientOptions extends SecureContextOptions {
      handshakeTimeout?: number;
      headers?: Record<string, string>;
      servername?: string;
      rejectUnauthorized?: boolean;
      agent?: unknown;
      perMessageDeflate?: boolean;
      maxPayload?: number;
    }
    type RawData = Buffer | ArrayBuffer | Buffer[];
  }

  class WebSocket extends EventEmitter {
    static readonly CONNECTING: 0;
    static readonly OPEN: 1;
    static readonly CLOSING: 2;
    static readonly CLOSED: 3;
    constructor(address: string, protocols?: string | string[], options?: WebSocket.ClientOptions);
    readonly readyState: 0 | 1 | 2 | 3;
    readonly protocol: string;
    send(data: Buffer, cb?: (err?: Error) => void): void;
    close(code?: number, reason?: string): void;
    terminate(): void;
    on(event: "open", listener: () => void): this;
    on(event: "close", listener: (code: number, reason: Buffer) => void): this;
    on(event: "error", listener: (err: Error) => void): this;
    on(event: "message", listener: (data: WebSocket.RawData, isBinary: boolean) => void): this;
    on(event: "unexpected-response", listener: (req: ClientRequest, res: IncomingMessage) => void): this;
    once(event: "open", listener: () => void): this;
    once(event: "close", listener: (code: number, reason: Buffer) => void): this;
  }

  /** the server side, for the tests' API server */
  export class WebSocketServer extends EventEmitter {
    constructor(options: { noServer: true; handleProtocols?: (protocols: Set<string>, req: IncomingMessage) => string | false; perMessageDeflate?: boolean });
    handleUpgrade(req: IncomingMessage, socket: import("node:stream").Duplex, head: Buffer, cb: (ws: WebSocket) => void): void;
    close(): void;
  }

  export default WebSocket;
}

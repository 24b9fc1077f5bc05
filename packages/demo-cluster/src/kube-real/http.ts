/**
 * A small HTTPS client for a real kube-apiserver, authenticated by a client certificate: JSON in, JSON out, one
 * keep-alive agent per identity. What the demo's writer, its bootstrap and its checks send; the dashboard itself talks
 * to the server through @kubernetes/client-node.
 */
import https from "node:https";

export interface KubeIdentity {
  caPem: string;
  certPem: string;
  keyPem: string;
}

export interface KubeAnswer {
  status: number;
  body: unknown;
  text: string;
}

/** The server's error answers carry a Status; `reason` and `message` of it, when there is one. */
export function statusOf(a: KubeAnswer): { reason?: string; message?: string; code?: number } {
  const b = a.body as { kind?: string; reason?: string; message?: string; code?: number } | null;
  return b && b.kind === "Status" ? { reason: b.reason, message: b.message, code: b.code } : {};
}

/** A transport failure (refused, reset, timed out): the server is not there, as while it restarts. */
export class KubeUnreachable extends Error {}

export class KubeHttp {
  private readonly agent: https.Agent;

  constructor(
    readonly server: string,
    identity: KubeIdentity,
    private readonly timeoutMs = 30_000,
  ) {
    this.agent = new https.Agent({ keepAlive: true, maxSockets: 16, ca: identity.caPem, cert: identity.certPem, key: identity.keyPem });
  }

  request(method: string, path: string, body?: unknown, contentType = "application/json"): Promise<KubeAnswer> {
    const url = new URL(path, this.server);
    const payload = body === undefined ? undefined : Buffer.from(typeof body === "string" ? body : JSON.stringify(body));
    return new Promise<KubeAnswer>((resolve, reject) => {
      const req = https.request(
        url,
        {
          method,
          agent: this.agent,
          headers: { accept: "application/json", ...(payload ? { "content-type": contentType, "content-length": payload.length } : {}) },
          timeout: this.timeoutMs,
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (c: Buffer) => chunks.push(c));
          res.on("error", (e) => reject(new KubeUnreachable(e.message)));
          res.on("end", () => {
            const text = Buffer.concat(chunks).toString("utf8");
            let parsed: unknown = null;
            try {
              parsed = text ? JSON.parse(text) : null;
            } catch {
              parsed = null;
            }
            resolve({ status: res.statusCode ?? 0, body: parsed, text });
          });
        },
      );
      req.on("timeout", () => req.destroy(new Error(`no answer in ${this.timeoutMs} ms`)));
      req.on("error", (e) => reject(new KubeUnreachable(`${method} ${url.pathname}: ${e.message}`)));
      req.end(payload);
    });
  }

  /** Server-side apply of `object` at `path` (create or update; this manager's fields win). */
  apply(path: string, object: unknown, fieldManager: string): Promise<KubeAnswer> {
    const sep = path.includes("?") ? "&" : "?";
    return this.request("PATCH", `${path}${sep}fieldManager=${encodeURIComponent(fieldManager)}&force=true`, object, "application/apply-patch+yaml");
  }

  close(): void {
    this.agent.destroy();
  }
}

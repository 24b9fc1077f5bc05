/**
 * The demo cluster's control API (docs/ARCHITECTURE.md, "Fault injection"), plain HTTP on loopback:
 * POST /faults {fault, ...params} -> 200 {fault, did} | 400 {error}; DELETE /faults heals everything; GET /faults lists the
 * active faults; GET /truth is the ground truth; POST /scenario {name} switches the scenario.
 *
 * A web page the demo's user visits can reach loopback too, so every request must carry the per-run token
 * (`Authorization: Bearer <token>`: a page cannot send it cross-origin without a preflight this API never grants), name
 * this listener in its Host header (a DNS-rebound name is refused) and carry no Origin but this listener's own. All three
 * are checked before any body is read.
 */
import http from "node:http";
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import type { AddressInfo } from "node:net";
import { parseFault } from "./contract/faults";
import { FaultError, type FaultEngine } from "./faults";
import { readJsonBody } from "./json-body";

export interface ControlHandlers {
  faults: FaultEngine;
  truth(): unknown | Promise<unknown>;
  scenario(name: string): string;
  scenarios: readonly string[];
}

const MAX_BODY = 64 * 1024;

function send(res: http.ServerResponse, status: number, body: unknown): void {
  const text = `${JSON.stringify(body)}\n`;
  res.writeHead(status, { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(text), "Cache-Control": "no-store" });
  res.end(text);
}

const readJson = (req: http.IncomingMessage) => readJsonBody(req, MAX_BODY);

const digest = (s: string) => createHash("sha256").update(s, "utf8").digest();

/** Why a request may not use the control API (null: it may): wrong Host, foreign Origin, missing or wrong token. */
export function controlRefusal(
  req: { headers: http.IncomingHttpHeaders },
  own: { url: string; token: string },
): { status: 401 | 403; error: string } | null {
  const authority = new URL(own.url).host;
  if ((req.headers.host ?? "").toLowerCase() !== authority.toLowerCase()) {
    return { status: 403, error: `the control API answers only as ${authority} (Host header); use the control URL of the demo's JSON line` };
  }
  const origin = req.headers.origin;
  if (origin !== undefined && origin.toLowerCase() !== new URL(own.url).origin.toLowerCase()) {
    return { status: 403, error: "cross-origin requests are refused" };
  }
  const m = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(req.headers.authorization ?? "");
  if (!m || !timingSafeEqual(digest(m[1]), digest(own.token))) {
    return { status: 401, error: "send Authorization: Bearer <controlToken> (in the demo's JSON line and in the file demo.controlTokenFile of its dashboard configuration)" };
  }
  return null;
}

export async function startControl(
  h: ControlHandlers,
  host = "127.0.0.1",
  port = 0,
  token = randomBytes(24).toString("base64url"),
): Promise<{ url: string; token: string; close(): Promise<void> }> {
  let own = { url: "", token };
  const server = http.createServer(async (req, res) => {
    const refused = controlRefusal(req, own);
    if (refused) {
      res.setHeader("Connection", "close");
      if (refused.status === 401) res.setHeader("WWW-Authenticate", 'Bearer realm="allocation-lens-demo"');
      return send(res, refused.status, { error: refused.error });
    }
    const path = new URL(req.url ?? "/", "http://x").pathname;
    try {
      if (path === "/faults" && req.method === "POST") {
        const parsed = parseFault(await readJson(req));
        if (!parsed.ok) return send(res, 400, { error: parsed.error });
        try {
          return send(res, 200, h.faults.apply(parsed.fault));
        } catch (e) {
          if (e instanceof FaultError) return send(res, 400, { error: e.message });
          throw e;
        }
      }
      if (path === "/faults" && req.method === "DELETE") return send(res, 200, h.faults.heal());
      if (path === "/faults" && req.method === "GET") return send(res, 200, { active: h.faults.list() });
      if (path === "/truth" && req.method === "GET") return send(res, 200, await h.truth());
      if (path === "/scenario" && req.method === "POST") {
        const body = (await readJson(req)) as { name?: unknown };
        if (typeof body?.name !== "string" || !h.scenarios.includes(body.name)) {
          return send(res, 400, { error: `unknown scenario ${JSON.stringify(body?.name)}; scenarios: ${h.scenarios.join(", ")}` });
        }
        return send(res, 200, { scenario: h.scenario(body.name) });
      }
      if (path === "/faults" || path === "/truth" || path === "/scenario") return send(res, 405, { error: `${req.method} is not allowed on ${path}` });
      return send(res, 404, { error: `no route ${path}; routes: POST/DELETE/GET /faults, GET /truth, POST /scenario` });
    } catch (e) {
      return send(res, 400, { error: (e as Error).message });
    }
  });
  await new Promise<void>((resolve) => server.listen(port, host, resolve));
  const { port: p } = server.address() as AddressInfo;
  own = { url: `http://${host.includes(":") ? `[${host}]` : host}:${p}`, token }; // an IPv6 host needs brackets in a URL
  return {
    url: own.url,
    token,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      }),
  };
}

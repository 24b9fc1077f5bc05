/**
 * Which requests may carry a body, decided from the request line and headers alone, before a byte of the body is read and
 * before Next.js sees the request (server/inbound/server.ts applies it). Next's proxy stage would otherwise buffer up to
 * 10 MB of every body and wait for the whole upload before proxy.ts could answer 401.
 *
 * - The demo control routes (`/api/v1/demo/*`) do not exist outside demo mode: 404 for every method, body unread.
 * - Only they accept a body (POST, DELETE), only in demo mode, and only up to `maxBodyBytes`: a declared Content-Length
 *   above it is refused at once, a chunked body is counted and cut at the limit.
 * - Any other request with a body (a GET with one, a POST to a page) is refused at once.
 *
 * Refusals are 404 or 413 and close the connection: the body is never read.
 */

export const DEMO_PREFIX = "/api/v1/demo";
/** The routes that read a request body, in demo mode only. */
export const DEMO_BODY_ROUTES: readonly string[] = [`${DEMO_PREFIX}/faults`, `${DEMO_PREFIX}/scenario`];
const BODY_METHODS = new Set(["POST", "DELETE"]);

export interface GateRequest {
  method: string;
  /** the request target as sent (`/lens/api/v1/summary?cluster=a`, or an absolute URL) */
  url: string;
  contentLength: string | undefined;
  transferEncoding: string | undefined;
}

export interface GateSettings {
  demo: boolean;
  maxBodyBytes: number;
  /** Next.js basePath ("" or "/prefix") */
  basePath: string;
}

export type GateVerdict =
  | { action: "pass" }
  | { action: "read"; limit: number }
  | { action: "refuse"; status: 404 | 413; code: string; message: string };

/**
 * The path as the router will see it, for comparisons: dot segments resolved, percent-escapes decoded, repeated slashes
 * collapsed, lower case, base path removed. null when the path is not under the base path.
 */
export function routePath(url: string, basePath: string): string | null {
  let p: string;
  try {
    p = new URL(url, "http://gate.invalid").pathname;
  } catch {
    p = url.split("?")[0];
  }
  try {
    p = decodeURIComponent(p);
  } catch {
    /* keep the escapes */
  }
  p = p.replace(/\/{2,}/g, "/").toLowerCase();
  const base = basePath.toLowerCase();
  if (base) {
    if (p !== base && !p.startsWith(`${base}/`)) return null;
    p = p.slice(base.length) || "/";
  }
  return p;
}

export function isDemoPath(path: string): boolean {
  return path === DEMO_PREFIX || path.startsWith(`${DEMO_PREFIX}/`);
}

function hasBody(r: GateRequest): boolean {
  if (r.transferEncoding !== undefined) return true;
  return r.contentLength !== undefined && r.contentLength.trim() !== "0";
}

export function gate(r: GateRequest, s: GateSettings): GateVerdict {
  const path = routePath(r.url, s.basePath);
  if (path !== null && isDemoPath(path) && !s.demo) return { action: "refuse", status: 404, code: "not_found", message: "not found" };
  if (!hasBody(r)) return { action: "pass" };
  const method = r.method.toUpperCase();
  const accepts = s.demo && path !== null && DEMO_BODY_ROUTES.includes(path) && BODY_METHODS.has(method);
  if (!accepts) return { action: "refuse", status: 413, code: "body_not_accepted", message: "this request accepts no body" };
  const declared = r.contentLength === undefined ? NaN : Number(r.contentLength);
  if (Number.isFinite(declared) && declared > s.maxBodyBytes) {
    return { action: "refuse", status: 413, code: "body_too_large", message: `the request body is over ${s.maxBodyBytes} bytes (server.maxBodyBytes)` };
  }
  return { action: "read", limit: s.maxBodyBytes };
}

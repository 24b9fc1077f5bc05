/** The Kubernetes API's answers: `Status` objects for failures and JSON bodies, as the real API server writes them. */
import type { ServerResponse } from "node:http";

export function status(code: number, reason: string, message: string, details?: Record<string, unknown>): Record<string, unknown> {
  return { kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", message, reason, ...(details ? { details } : {}), code };
}

export function sendJson(res: ServerResponse, code: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(code, { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(text), "Cache-Control": "no-cache, private" });
  res.end(text);
}

export const NOT_FOUND = status(404, "NotFound", "the server could not find the requested resource");

export const methodNotAllowed = (message = "the server does not allow this method on the requested resource") => status(405, "MethodNotAllowed", message);

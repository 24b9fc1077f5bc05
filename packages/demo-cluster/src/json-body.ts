/** A request's body, read up to a limit: raw (the Kubernetes API's protobuf writes) or parsed as JSON (the control API, Lease writes). */
import type http from "node:http";

/** Resolves with the body's bytes; rejects with "body too large" as soon as it passes `maxBytes` (the request is destroyed). */
export function readBody(req: http.IncomingMessage, maxBytes: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (c: Buffer) => {
      size += c.length;
      if (size > maxBytes) {
        reject(new Error("body too large"));
        req.destroy();
        return;
      }
      chunks.push(c);
    });
    req.on("end", () => resolve(Buffer.concat(chunks)));
    req.on("error", reject);
  });
}

/**
 * Resolves with the parsed body (`empty` for a body of white space only); rejects with "body too large" as soon as it
 * passes `maxBytes` (the request is destroyed), or "the body is not JSON".
 */
export async function readJsonBody(req: http.IncomingMessage, maxBytes: number, empty: () => unknown = () => ({})): Promise<unknown> {
  const text = (await readBody(req, maxBytes)).toString("utf8");
  try {
    return text.trim() ? JSON.parse(text) : empty();
  } catch {
    throw new Error("the body is not JSON");
  }
}

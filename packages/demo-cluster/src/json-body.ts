/** A request's JSON body, read up to a limit: the demo's control API and its Kubernetes API's Lease writes. */
import type http from "node:http";

/**
 * Resolves with the parsed body (`empty` for a body of white space only); rejects with "body too large" as soon as it
 * passes `maxBytes` (the request is destroyed), or "the body is not JSON".
 */
export function readJsonBody(req: http.IncomingMessage, maxBytes: number, empty: () => unknown = () => ({})): Promise<unknown> {
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
    req.on("end", () => {
      const text = Buffer.concat(chunks).toString("utf8");
      try {
        resolve(text.trim() ? JSON.parse(text) : empty());
      } catch {
        reject(new Error("the body is not JSON"));
      }
    });
    req.on("error", reject);
  });
}

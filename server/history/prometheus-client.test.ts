/**
 * PrometheusClient against loopback servers: history.prometheus.timeoutSeconds is a deadline per query (an answer
 * dribbled a byte at a time is cut at it), and an error body stays out of the message (its start is the log's detail).
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { historyPrometheusSchema } from "@/lib/config/schema";
import { SourceError } from "@/lib/source-error";
import { PrometheusClient } from "@/server/history/prometheus-client";

const cleanups: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function serve(handler: http.RequestListener): Promise<PrometheusClient & { url: string }> {
  const server = http.createServer(handler);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const client = new PrometheusClient(historyPrometheusSchema.parse({ url, timeoutSeconds: 1 }));
  cleanups.push(
    () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
    () => client.close(),
  );
  return Object.assign(client, { url });
}

describe("PrometheusClient", () => {
  it("cuts a query whose answer dribbles a byte every 200 ms at timeoutSeconds", async () => {
    const client = await serve((_req, res) => {
      res.writeHead(200, { "Content-Type": "application/json" });
      const timer = setInterval(() => res.write(" "), 200);
      res.on("close", () => clearInterval(timer));
    });
    const started = performance.now();
    const err = await client.query("up", 0).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SourceError);
    expect(err).toMatchObject({ kind: "timeout", message: "no complete answer within 1 s" });
    expect((err as SourceError).hint).toContain("history.prometheus.timeoutSeconds");
    expect(performance.now() - started).toBeLessThan(2_000);
  });

  it("an HTML error page: a fixed message, its start only in detail", async () => {
    const client = await serve((_req, res) => {
      res.writeHead(502, { "Content-Type": "text/html" });
      res.end("<html><body>upstream tenant-7 gateway failure</body></html>");
    });
    const err = (await client.query("up", 0).catch((e: unknown) => e)) as SourceError;
    expect(err.toJSON()).toMatchObject({ kind: "http", status: 502, message: "HTTP 502 from the backend" });
    expect(JSON.stringify(err)).not.toContain("tenant-7");
    expect(err.detail).toContain("upstream tenant-7 gateway failure");
  });
});

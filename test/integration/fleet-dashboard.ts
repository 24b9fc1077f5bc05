/**
 * One cluster's dashboard for the fleet integration test (test/integration/fleet.test.ts), as a process of its own: an
 * in-process demo cluster (its real Kubernetes API, TAs and control API on loopback) read by the dashboard's production
 * runtime (`getRuntime()`, the pollers), serving the real route handlers of `/metrics` and `/api/v1/summary` over HTTP on
 * loopback. Cheaper than a built server per cluster, with the same runtime and routes.
 *
 *   node --conditions=react-server --import tsx test/integration/fleet-dashboard.ts <cluster> <ready-only|legacy>
 *
 * Prints one JSON line (`port`, `control`, `controlToken`) once its first poll has finished; stops on SIGTERM.
 */
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import YAML from "yaml";
import { startDemoCluster } from "@allocation-lens/demo-cluster/internal/cluster";

type Route = { GET: (request: Request) => Promise<Response> | Response };

async function main() {
  const [cluster, tracking] = process.argv.slice(2);
  if (!cluster || (tracking !== "ready-only" && tracking !== "legacy")) throw new Error("usage: fleet-dashboard.ts <cluster> <ready-only|legacy>");
  const demo = await startDemoCluster({ pollInterval: 1, nodes: 5, seed: 7, tracking });
  const doc = YAML.parse(fs.readFileSync(demo.info.dashboardConfig, "utf8"));
  doc.clusters[0].name = cluster;
  fs.writeFileSync(demo.info.dashboardConfig, YAML.stringify(doc));
  process.env.ALLOCATION_LENS_CONFIG = demo.info.dashboardConfig;
  const { getRuntime } = await import("@/server/runtime");
  const runtime = await getRuntime();
  await [...runtime.pollers.values()][0].next(120_000);
  const routes: Record<string, () => Promise<Route>> = {
    "/metrics": () => import("@/app/metrics/route"),
    "/api/v1/summary": () => import("@/app/api/v1/summary/route"),
  };
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const load = routes[url.pathname];
    if (!load) return void res.writeHead(404).end();
    load()
      .then(async (mod) => {
        const r = await mod.GET(new Request(url));
        res.writeHead(r.status, { "Content-Type": r.headers.get("content-type") ?? "text/plain" }).end(await r.text());
      })
      .catch((e: unknown) => res.writeHead(500).end(String(e)));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const stop = async () => {
    server.close();
    await runtime.stop();
    await demo.close();
    process.exit(0);
  };
  process.once("SIGTERM", () => void stop());
  process.once("SIGINT", () => void stop());
  process.stdout.write(`${JSON.stringify({ port: (server.address() as AddressInfo).port, control: demo.info.control, controlToken: demo.info.controlToken })}\n`);
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});

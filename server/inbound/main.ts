/**
 * The server entry of `npm start` and of the container image (bundled by scripts/build-server.mjs into
 * <dir>/allocation-lens-server.mjs, run from the app directory): our own Node HTTP server with explicit limits and the body
 * gate (server/inbound/server.ts) in front of Next.js' request handler, instead of `next start` or the standalone
 * output's server.js, which run with Node's defaults and read every body before proxy.ts decides.
 *
 * Environment: PORT (default 3000), HOSTNAME (default 127.0.0.1; the image sets 0.0.0.0), ALLOCATION_LENS_CONFIG or
 * --config FILE, ALLOCATION_LENS_DIST_DIR (the build directory, default .next). The Next.js configuration is the build's
 * own, from <distDir>/required-server-files.json (as the standalone server.js has it), so the base path and the rest are
 * exactly what was built.
 *
 * It serves the build's static assets from memory (server/inbound/static-assets.ts), the pushed answers
 * (server/inbound/pushed.ts) and, with `lease`, the replicas' peer path
 * (/internal/peer/v1/, server/lease/peer-server.ts), before Next.js.
 *
 * SIGTERM / SIGINT: the server stops accepting connections and closes idle ones; server/boot.ts (run by Next.js'
 * instrumentation) stops the pollers, flushes the history and exits. So does a closed standard output or error
 * (server/inbound/closed-output.ts).
 */
import { EventEmitter } from "node:events";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import v8 from "node:v8";
import { heapFlagsToSet } from "@/lib/node-flags";
import { compilePolicy } from "@/lib/auth/decide";
import { clientKey, type FailureLimiter } from "@/lib/auth/failures";
import { isExempt } from "@/lib/auth/paths";
import { clientOf } from "@/lib/inbound/clients";
import { routePath } from "@/lib/inbound/gate";
import { headerOf } from "@/server/inbound/early";
import { preflight } from "@/server/inbound/preflight";
import { serveMetrics } from "@/server/inbound/metrics";
import { servePushed } from "@/server/inbound/pushed";
import { loadStaticAssets } from "@/server/inbound/static-assets";
import { stopOnClosedOutput, terminateSelf } from "@/server/inbound/closed-output";
import { createInboundServer } from "@/server/inbound/server";
import { isPeerPath, peerRequest, peerRuntimeNow, refusePeer, servePeer } from "@/server/lease/peer-server";

async function main(): Promise<void> {
  (process.env as Record<string, string>).NODE_ENV = "production"; // as the standalone server.js does
  stopOnClosedOutput([process.stdout, process.stderr], terminateSelf);
  // before the runtime and its poll worker start: the old generations grow by a bounded factor (lib/node-flags.ts)
  for (const flag of heapFlagsToSet(process.execArgv, process.env.NODE_OPTIONS)) v8.setFlagsFromString(flag);
  process.env.NEXT_TELEMETRY_DISABLED ??= "1";
  // The poll worker's bundle sits beside this one (scripts/build-server.mjs); Next's bundles start it (server/poll/host.ts).
  const worker = path.join(path.dirname(fileURLToPath(import.meta.url)), "allocation-lens-poll-worker.mjs");
  if (!process.env.ALLOCATION_LENS_POLL_WORKER && fs.existsSync(worker)) process.env.ALLOCATION_LENS_POLL_WORKER = worker;
  const checked = preflight();
  if (!checked.ok) {
    console.error(checked.message);
    process.exit(1);
  }
  const { host, port, demo, limits, config } = checked.settings;
  const dir = process.cwd();
  const distDir = process.env.ALLOCATION_LENS_DIST_DIR || ".next";
  const manifest = path.join(dir, distDir, "required-server-files.json");
  let conf: { basePath?: string; [k: string]: unknown };
  try {
    conf = (JSON.parse(fs.readFileSync(manifest, "utf8")) as { config: typeof conf }).config;
  } catch (e) {
    console.error(`allocation-lens: cannot start: no build in ${path.join(dir, distDir)} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message}): run \`npm run build\``);
    process.exit(1);
  }
  // Next's router reads its configuration from here (as the standalone server.js sets it), not from `conf`.
  process.env.__NEXT_PRIVATE_STANDALONE_CONFIG = JSON.stringify(conf);
  const { default: next } = await import("next");
  const app = next({
    dev: false,
    dir,
    conf: conf as never,
    hostname: host,
    port,
    // Next attaches its WebSocket upgrade handler (dev HMR, rewrites to WebSocket backends) to the server it is given. The
    // dashboard has none: it gets a sink, and an Upgrade request is an ordinary request through the gate.
    httpServer: new EventEmitter() as never,
  });
  await app.prepare(); // runs instrumentation.ts: the runtime starts (configuration, pollers, demo cluster)
  const handle = app.getRequestHandler();
  const basePath = conf.basePath ?? "";
  const assets = await loadStaticAssets(path.join(dir, distDir, "static"), basePath);
  const auth = config ? compilePolicy(config.auth) : null;
  // The failure limit of token mode lives with the access decision (server/access.ts, in Next.js' bundles and in this
  // entry's own answers); every side finds
  // the one table under this global key. An address it locks out is refused here, before Next.js.
  const failures = () => (globalThis as { [k: symbol]: FailureLimiter | undefined })[Symbol.for("allocation-lens.auth-failures")];
  const server = createInboundServer({
    limits,
    gate: { demo, basePath },
    clients: { of: (req) => clientOf(req.socket.remoteAddress, (name) => headerOf(req, name) ?? undefined, auth), maxInFlight: limits.maxRequestsPerClient, perSecond: limits.requestsPerSecondPerClient, burst: limits.requestBurstPerClient },
    lockout: (req) => {
      if (auth?.mode !== "token") return 0;
      const path = routePath(req.url ?? "/", basePath);
      if (path === null || isExempt(path, auth.exemptPaths)) return 0;
      return failures()?.retryAfterSeconds(clientKey(req.socket.remoteAddress), Date.now()) ?? 0;
    },
    // the replicas' peer path (with `lease`): with the peer token, served here without the per-client limits; else 401
    trusted: (req) => {
      const runtime = peerRuntimeNow(req);
      return runtime ? (q, r) => servePeer(runtime, q, r) : null;
    },
    handler: async (req, res) => {
      if (assets.serve(req, res)) return;
      if (!isPeerPath(req.url)) return (await servePushed(req, res, basePath)) || (await serveMetrics(req, res, basePath)) ? undefined : handle(req, res);
      const verdict = await peerRequest(req);
      if (verdict === "pass") return handle(req, res);
      return verdict === "refuse" ? refusePeer(res) : servePeer(verdict.serve, req, res);
    },
    onError: (e, req) => console.error(`allocation-lens: ${req.method} ${req.url?.split("?")[0]}: ${(e as Error)?.stack ?? e}`),
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => resolve());
  });
  const shown = host === "0.0.0.0" || host === "::" ? "localhost" : host.includes(":") ? `[${host}]` : host;
  console.log(`allocation-lens: serving on http://${shown}:${port}${conf.basePath ?? ""}`);
  const stop = () => {
    server.close();
    server.closeIdleConnections();
  };
  process.once("SIGTERM", stop);
  process.once("SIGINT", stop);
}

main().catch((e) => {
  console.error(`allocation-lens: cannot start: ${(e as Error)?.stack ?? e}`);
  process.exit(1);
});

/**
 * The container image's server, without a Docker engine: the Next.js standalone output (what the Dockerfile copies) built
 * into .next/al-standalone (never clobbering .next), laid out as in the image (static/ and public/ copied beside it, the
 * bundled server entry allocation-lens-server.mjs at its root), started as the image's CMD starts it (SERVING_NODE_FLAGS) as uid 10001
 * over files it cannot write (the image's read-only root filesystem; when the tests do not run as root, as the current
 * user), on an in-process demo cluster. Checks: probes, the API, auth and security headers, the inbound limits (a slow
 * upload is refused unread), SIGTERM exits 0 promptly with the history flushed to the data directory, and clear refusals
 * without a configuration, with a bad one, and anonymous on 0.0.0.0.
 *
 * The build (about a minute, 1.4 GiB peak) is reused while no source file is newer than it.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import YAML from "yaml";
import { freePort } from "@allocation-lens/test-support/ports";
import { SERVING_ENV, SERVING_NODE_FLAGS } from "@/lib/node-flags";
import { startDemoCluster, type DemoCluster } from "@allocation-lens/demo-cluster/internal/cluster";

const ROOT = path.resolve(import.meta.dirname, "../..");
const DIST_REL = ".next/al-standalone";
const DIST = path.join(ROOT, DIST_REL);
const BUILT = path.join(DIST, "standalone");
/**
 * The image's /app: the standalone output copied to a world-readable place, because the non-root user cannot always reach
 * the checkout (a clone made with mktemp -d is mode 0700).
 */
let STANDALONE = "";
const APP_UID = 10001;
const asRoot = process.getuid?.() === 0;

const SOURCES = ["app", "components", "lib", "server", "packages", "public", "proxy.ts", "instrumentation.ts", "next.config.ts", "package.json"];
/** The image's command: the bundled server entry (server/inbound/main.ts), as the Dockerfile copies it. */
const ENTRY = "allocation-lens-server.mjs";

function newestSource(p: string): number {
  const st = fs.statSync(p, { throwIfNoEntry: false });
  if (!st) return 0;
  if (!st.isDirectory()) return /\.test\.tsx?$/.test(p) ? 0 : st.mtimeMs;
  let newest = 0;
  for (const e of fs.readdirSync(p)) if (e !== "node_modules" && !e.startsWith(".")) newest = Math.max(newest, newestSource(path.join(p, e)));
  return newest;
}

function run(cmd: string, args: string[], env: Record<string, string | undefined>, cwd = ROOT): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { cwd, env: env as NodeJS.ProcessEnv, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    child.stdout.on("data", (d) => (out = (out + d).slice(-20_000)));
    child.stderr.on("data", (d) => (out = (out + d).slice(-20_000)));
    child.on("exit", (code) => resolve({ code, out }));
  });
}

async function ensureBuild(): Promise<void> {
  const built = fs.statSync(path.join(BUILT, "server.js"), { throwIfNoEntry: false });
  const fresh = built && built.mtimeMs > Math.max(...SOURCES.map((s) => newestSource(path.join(ROOT, s))));
  if (!fresh) {
    // A tsconfig of its own: a build with another distDir rewrites the include list of the tsconfig it is given.
    const tsconfig = path.join(ROOT, ".next", "al-standalone.tsconfig.json");
    fs.mkdirSync(path.dirname(tsconfig), { recursive: true });
    fs.writeFileSync(tsconfig, JSON.stringify({ extends: "../tsconfig.json", include: ["../next-env.d.ts", "../**/*.ts", "../**/*.tsx"], exclude: ["../node_modules", "../.next"] }));
    const env = {
      ...process.env,
      NODE_ENV: "production",
      NEXT_TELEMETRY_DISABLED: "1",
      ALLOCATION_LENS_STANDALONE: "1",
      ALLOCATION_LENS_DIST_DIR: DIST_REL,
      ALLOCATION_LENS_TSCONFIG: path.relative(ROOT, tsconfig),
    };
    const r = await run(process.execPath, [path.join(ROOT, "node_modules/next/dist/bin/next"), "build"], env);
    if (r.code !== 0) throw new Error(`standalone build failed:\n${r.out}`);
  }
  // Laid out as the Dockerfile does: the standalone output, with static assets and public/ beside server.js. Made here,
  // not at the module's top, which `vitest list` runs too.
  STANDALONE = fs.mkdtempSync(path.join(os.tmpdir(), "al-image-"));
  fs.cpSync(BUILT, STANDALONE, { recursive: true, verbatimSymlinks: true });
  const staticDir = path.join(STANDALONE, DIST_REL, "static");
  fs.rmSync(staticDir, { recursive: true, force: true });
  fs.cpSync(path.join(DIST, "static"), staticDir, { recursive: true });
  fs.rmSync(path.join(STANDALONE, "public"), { recursive: true, force: true });
  fs.cpSync(path.join(ROOT, "public"), path.join(STANDALONE, "public"), { recursive: true });
  const bundled = await run(process.execPath, [path.join(ROOT, "scripts", "build-server.mjs"), "--outfile", path.join(STANDALONE, ENTRY)], { ...process.env });
  if (bundled.code !== 0) throw new Error(`bundling the server entry failed:\n${bundled.out}`);
}


interface Server {
  child: ChildProcess;
  port: number;
  output: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

function startServer(env: Record<string, string>, port: number, home: string): Server {
  let out = "";
  const child = spawn(process.execPath, [...SERVING_NODE_FLAGS, ENTRY], {
    cwd: STANDALONE,
    env: {
      ...SERVING_ENV,
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      NODE_ENV: "production",
      NEXT_TELEMETRY_DISABLED: "1",
      PORT: String(port),
      HOSTNAME: "127.0.0.1",
      HOME: home,
      TMPDIR: home,
      ALLOCATION_LENS_DIST_DIR: DIST_REL, // the image's build directory is the default .next
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
    ...(asRoot ? { uid: APP_UID, gid: APP_UID } : {}),
  });
  child.stdout!.on("data", (d) => (out = (out + d).slice(-50_000)));
  child.stderr!.on("data", (d) => (out = (out + d).slice(-50_000)));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on("exit", (code, signal) => resolve({ code, signal })));
  return { child, port, output: () => out, exited };
}

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

function get(port: number, p: string, headers: Record<string, string> = {}, localAddress?: string, method = "GET", body?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: "127.0.0.1", port, path: p, headers, localAddress, agent: false, method }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (c) => (body += c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on("error", reject);
    req.setTimeout(20_000, () => req.destroy(new Error(`${method} ${p}: timeout`)));
    req.end(body);
  });
}

async function eventually<T>(fn: () => Promise<T>, ok: (v: T) => boolean, ms: number, what: string, server?: Server): Promise<T> {
  const until = Date.now() + ms;
  let last: T | undefined;
  let error: unknown;
  while (Date.now() < until) {
    try {
      last = await fn();
      if (ok(last)) return last;
    } catch (e) {
      error = e;
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`${what}: not within ${ms} ms (last: ${JSON.stringify(last)?.slice(0, 300)} ${String(error ?? "")})\n${server?.output() ?? ""}`);
}

/** A directory the app user owns (its /data); parents must be traversable by it. */
function appDir(parent: string, name: string): string {
  const d = path.join(parent, name);
  fs.mkdirSync(d, { recursive: true });
  if (asRoot) fs.chownSync(d, APP_UID, APP_UID);
  return d;
}

const listFiles = (dir: string): string[] =>
  fs.readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).map((e) => path.join(e.parentPath, e.name)).sort();

describe("standalone server (the container image's entry point)", { timeout: 120_000 }, () => {
  let demo: DemoCluster;
  let work: string;
  let configFile: string;
  let server: Server;
  let before: string[];
  const TOKEN = "standalone-test-token-0123456789";

  beforeAll(async () => {
    await ensureBuild();
    fs.chmodSync(STANDALONE, 0o755);
    before = listFiles(STANDALONE);
    work = fs.mkdtempSync(path.join(os.tmpdir(), "al-standalone-"));
    fs.chmodSync(work, 0o755);
    demo = await startDemoCluster({ nodes: 4, dir: path.join(work, "demo"), pollInterval: 1 });
    // the app user reads the demo's TLS files and kubeconfig as it would read mounted Secrets
    for (const f of listFiles(path.join(work, "demo"))) fs.chmodSync(f, 0o644);
    for (const d of [path.join(work, "demo"), path.join(work, "demo", "tls")]) if (fs.existsSync(d)) fs.chmodSync(d, 0o755);
    const config = YAML.parse(fs.readFileSync(demo.info.dashboardConfig, "utf8"));
    delete config.demo; // a real deployment: read-only, no demo control
    const data = appDir(work, "data");
    config.history = { path: path.join(data, "history.sqlite") };
    fs.writeFileSync(path.join(work, "tokens"), `# portal\n${TOKEN}\n`, { mode: 0o644 });
    config.auth = { mode: "token", tokenFile: path.join(work, "tokens") };
    config.embed = { frameAncestors: ["'self'", "https://portal.example.com"] };
    configFile = path.join(work, "config.yaml");
    fs.writeFileSync(configFile, YAML.stringify(config), { mode: 0o644 });
    server = startServer({ ALLOCATION_LENS_CONFIG: configFile }, await freePort(), appDir(work, "home"));
    await eventually(() => get(server.port, "/api/healthz"), (r) => r.status === 200, 60_000, "healthz", server);
  }, 600_000);

  afterAll(async () => {
    if (server && server.child.exitCode === null && server.child.signalCode === null) server.child.kill("SIGKILL");
    await demo?.close();
    if (work) fs.rmSync(work, { recursive: true, force: true });
    if (STANDALONE) fs.rmSync(STANDALONE, { recursive: true, force: true });
  });

  it("serves the probes without credentials; readyz turns 200 once the first poll is done", async () => {
    const health = await get(server.port, "/api/healthz");
    expect(health.status).toBe(200);
    expect(JSON.parse(health.body)).toEqual({ status: "ok" });
    const ready = await eventually(() => get(server.port, "/api/readyz"), (r) => r.status === 200, 60_000, "readyz", server);
    expect(JSON.parse(ready.body).status).toBe("ready");
  });

  it("serves the API, pages and /metrics with a bearer token only, with the security headers", async () => {
    const auth = { Authorization: `Bearer ${TOKEN}` };
    const summary = await get(server.port, "/api/v1/summary", auth);
    expect(summary.status).toBe(200);
    expect(JSON.parse(summary.body).cluster).toBe("demo");
    for (const p of ["/api/v1/summary", "/metrics", "/", "/nodes", "/api/v1/clusters"]) {
      const denied = await get(server.port, p);
      expect(denied.status, p).toBe(401);
      expect(JSON.parse(denied.body).error.message).toContain("Authorization: Bearer");
      expect(denied.headers["www-authenticate"]).toContain("Bearer");
      expect((await get(server.port, p, { Authorization: "Bearer nope" })).status, p).toBe(401);
    }
    const metrics = await get(server.port, "/metrics", auth);
    expect(metrics.status).toBe(200);
    expect(metrics.body).toContain("allocation_lens_");
    const page = await get(server.port, "/nodes", auth);
    expect(page.status).toBe(200);
    const csp = String(page.headers["content-security-policy"]);
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("frame-ancestors 'self' https://portal.example.com");
    const nonce = /'nonce-([^']+)'/.exec(csp)?.[1];
    expect(nonce).toBeTruthy();
    // every script of the page carries the request's nonce: nothing inline runs without it
    const scripts = page.body.match(/<script\b[^>]*>/g) ?? [];
    expect(scripts.length).toBeGreaterThan(0);
    for (const s of scripts) expect(s).toContain(`nonce="${nonce}"`);
    expect(page.headers["x-content-type-options"]).toBe("nosniff");
    expect(page.headers["referrer-policy"]).toBe("no-referrer");
    expect(page.headers["x-frame-options"]).toBeUndefined();
    // the static files, served by the server entry before Next.js: the token as everywhere, and the security headers
    const chunk = /\/_next\/static\/chunks\/[^"]+\.js/.exec(page.body)?.[0];
    expect(chunk).toBeTruthy();
    expect((await get(server.port, chunk!)).status).toBe(401);
    const served = await get(server.port, chunk!, auth);
    expect(served.status).toBe(200);
    expect(served.headers["cache-control"]).toBe("public, max-age=31536000, immutable");
    expect(served.headers["x-content-type-options"]).toBe("nosniff");
    expect(String(served.headers["content-security-policy"])).toContain("frame-ancestors 'self' https://portal.example.com");
    // two requests, two nonces
    const again = await get(server.port, "/nodes", auth);
    expect(String(again.headers["content-security-policy"])).not.toContain(nonce!);
  });

  it("is read-only outside demo mode: the demo routes do not exist", async () => {
    const auth = { Authorization: `Bearer ${TOKEN}`, "Content-Type": "application/json" };
    const calls: [string, string, string?][] = [
      ["GET", "/api/v1/demo/faults"],
      ["POST", "/api/v1/demo/faults", JSON.stringify({ fault: "node-remove", node: "x" })],
      ["DELETE", "/api/v1/demo/faults"],
      ["POST", "/api/v1/demo/scenario", JSON.stringify({ name: "demo" })],
    ];
    for (const [method, p, body] of calls) {
      const r = await get(server.port, p, auth, undefined, method, body);
      expect(r.status, `${method} ${p}`).toBe(404);
    }
    const clusters = JSON.parse((await get(server.port, "/api/v1/clusters", auth)).body);
    expect(clusters.demo).toBe(false);
  });

  it("refuses a 2 GB upload dripped at 256 kB / 100 ms to /api/healthz at once, unread, and still serves", async () => {
    const socket = net.connect({ port: server.port, host: "127.0.0.1", allowHalfOpen: true });
    let received = "";
    let timer: NodeJS.Timeout | undefined;
    const started = Date.now();
    socket.on("connect", () => {
      socket.write("POST /api/healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 2000000000\r\n\r\n");
      timer = setInterval(() => socket.writable && socket.write(Buffer.alloc(256 * 1024, 0x61)), 100);
    });
    socket.on("data", (d) => (received += d));
    socket.on("error", () => {});
    const closed = await Promise.race([
      new Promise<number>((r) => socket.on("close", () => r(Date.now() - started))),
      new Promise<number>((r) => setTimeout(() => r(Infinity), 5_000)),
    ]);
    clearInterval(timer);
    socket.destroy();
    expect(closed, `still open after 5 s; received ${JSON.stringify(received.slice(0, 100))}`).toBeLessThan(5_000);
    expect(received).toMatch(/^HTTP\/1\.1 413 /);
    // what the client managed to write before the server closed: the socket buffers, not the 2 GB
    expect(socket.bytesWritten).toBeLessThan(8 * 1024 * 1024);
    // a body where none is expected is refused the same way, and the demo routes are 404 unread
    const withBody = await new Promise<string>((resolve) => {
      const c = net.connect(server.port, "127.0.0.1", () => c.write("GET /api/v1/summary HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 5\r\n\r\nhello"));
      let t = "";
      c.on("data", (d) => (t += d));
      c.on("close", () => resolve(t));
    });
    expect(withBody).toMatch(/^HTTP\/1\.1 413 /);
    expect((await get(server.port, "/api/healthz")).status).toBe(200);
  });

  it("stops on SIGTERM with exit code 0 within seconds, history flushed to its data directory, nothing written elsewhere", async () => {
    await eventually(() => get(server.port, "/api/readyz"), (r) => r.status === 200, 60_000, "readyz", server);
    const started = Date.now();
    server.child.kill("SIGTERM");
    const { code, signal } = await server.exited;
    expect({ code, signal }).toEqual({ code: 0, signal: null });
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(fs.existsSync(path.join(work, "data", "history.sqlite"))).toBe(true);
    expect(server.output()).not.toMatch(/EACCES|EROFS|permission denied/i);
    expect(listFiles(STANDALONE)).toEqual(before);
  });

  it("refuses to start without a configuration, saying why", async () => {
    const s = startServer({}, await freePort(), appDir(work, "home2"));
    const exit = await Promise.race([s.exited, new Promise<null>((r) => setTimeout(() => r(null), 60_000))]);
    if (!exit) s.child.kill("SIGKILL");
    expect(exit?.code).toBe(1);
    expect(s.output()).toContain("no configuration: set ALLOCATION_LENS_CONFIG; the embedded demo needs the source tree (npm start)");
  });

  it("refuses to start on a bad configuration, naming each problem", async () => {
    const bad = path.join(work, "bad.yaml");
    fs.writeFileSync(bad, "clusters: []\ncolour: red\nauth: { mode: proxy }\n", { mode: 0o644 });
    const s = startServer({ ALLOCATION_LENS_CONFIG: bad }, await freePort(), appDir(work, "home3"));
    const exit = await Promise.race([s.exited, new Promise<null>((r) => setTimeout(() => r(null), 60_000))]);
    if (!exit) s.child.kill("SIGKILL");
    expect(exit?.code).toBe(1);
    expect(s.output()).toContain("clusters: expected at least one cluster");
    expect(s.output()).toMatch(/\(top level\): .*colour/);
    expect(s.output()).toContain("auth.trustedProxies: mode proxy needs the addresses");
  });

  it("refuses to start anonymously on 0.0.0.0 unless the configuration says so, naming auth.allowAnonymous", async () => {
    const config = YAML.parse(fs.readFileSync(configFile, "utf8"));
    config.auth = { mode: "none" };
    const open = path.join(work, "open.yaml");
    fs.writeFileSync(open, YAML.stringify(config), { mode: 0o644 });
    const s = startServer({ ALLOCATION_LENS_CONFIG: open, HOSTNAME: "0.0.0.0" }, await freePort(), appDir(work, "home5"));
    const exit = await Promise.race([s.exited, new Promise<null>((r) => setTimeout(() => r(null), 60_000))]);
    if (!exit) s.child.kill("SIGKILL");
    expect(exit?.code).toBe(1);
    expect(s.output()).toContain(`refusing to serve anonymously on 0.0.0.0:${s.port}: auth.mode is none in ${open}`);
    expect(s.output()).toContain("auth.allowAnonymous: true");
  });

  it("proxy mode: trusts X-Auth-Request-User from the proxy's address only, whatever headers a client forges", async () => {
    const config = YAML.parse(fs.readFileSync(configFile, "utf8"));
    config.auth = { mode: "proxy", trustedProxies: ["127.0.0.2"] };
    const file = path.join(work, "proxy.yaml");
    fs.writeFileSync(file, YAML.stringify(config), { mode: 0o644 });
    const s = startServer({ ALLOCATION_LENS_CONFIG: file }, await freePort(), appDir(work, "home4"));
    try {
      // polled once: the pushed answers are then served by the server entry itself, before Next.js, as are static files
      await eventually(() => get(s.port, "/api/readyz"), (r) => r.status === 200, 60_000, "readyz", s);
      const user = { "X-Auth-Request-User": "alice" };
      const page = await get(s.port, "/", user, "127.0.0.2");
      const script = /\/_next\/static\/chunks\/[^"]+\.js/.exec(page.body)?.[0];
      expect(script).toBeTruthy();
      for (const p of ["/api/v1/summary", script!]) expect((await get(s.port, p, user, "127.0.0.2")).status, p).toBe(200);
      // through the proxy (peer 127.0.0.2)
      expect((await get(s.port, "/api/v1/clusters", user, "127.0.0.2")).status).toBe(200);
      const anonymous = await get(s.port, "/api/v1/clusters", {}, "127.0.0.2");
      expect(anonymous.status).toBe(401);
      expect(JSON.parse(anonymous.body).error.message).toContain("X-Auth-Request-User");
      // straight to the pod (peer 127.0.0.1), forging what a proxy would say
      const forged = { ...user, "X-Forwarded-For": "127.0.0.2", "X-Real-IP": "127.0.0.2", "X-Allocation-Lens-Peer": "x 127.0.0.2" };
      for (const p of ["/api/v1/clusters", "/metrics", "/", "/api/v1/summary", "/api/v1/nodes", script!]) {
        const r = await get(s.port, p, forged, "127.0.0.1");
        expect(r.status, p).toBe(403);
        expect(JSON.parse(r.body).error.code).toBe("untrusted_peer");
      }
      expect((await get(s.port, "/api/healthz", {}, "127.0.0.1")).status).toBe(200);
    } finally {
      s.child.kill("SIGTERM");
      await s.exited;
    }
  });
});

/**
 * What the server entry refuses before it binds its port: anonymous serving beyond loopback without
 * `auth.allowAnonymous: true`, the embedded demo beyond loopback, a token file with a short token (named by file and line,
 * never quoted). Listen address and limits come from the environment and the configuration.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import YAML from "yaml";
import { preflight } from "@/server/inbound/preflight";

const ROOT = path.resolve(import.meta.dirname, "../..");
let dir: string;
const minimal = {
  clusters: [
    {
      name: "prod",
      targetAllocators: { "per-node": { url: "http://ta:80", flavor: "upstream", collectors: { namespace: "obs", selector: { app: "agent" } } } },
    },
  ],
};
function configFile(name: string, extra: Record<string, unknown>): string {
  const f = path.join(dir, name);
  fs.writeFileSync(f, YAML.stringify({ ...minimal, ...extra }));
  return f;
}
const run = (env: Record<string, string>, cwd = ROOT) => preflight(env as NodeJS.ProcessEnv, ["node", "entry"], cwd);

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "al-preflight-"));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe("preflight", () => {
  it("refuses auth.mode none on 0.0.0.0, naming the file, auth.allowAnonymous and the other fixes", () => {
    const file = configFile("open.yaml", { auth: { mode: "none" } });
    const r = run({ ALLOCATION_LENS_CONFIG: file, HOSTNAME: "0.0.0.0", PORT: "3000" });
    expect(r.ok).toBe(false);
    const m = !r.ok ? r.message : "";
    expect(m).toContain(file);
    expect(m).toContain("auth.allowAnonymous: true");
    expect(m).toContain("0.0.0.0:3000");
    // the same with the default auth (none)
    expect(run({ ALLOCATION_LENS_CONFIG: configFile("default.yaml", {}), HOSTNAME: "::" }).ok).toBe(false);
  });

  it("starts anonymous on 0.0.0.0 when the configuration says so, on loopback, or with auth", () => {
    const allowed = configFile("allowed.yaml", { auth: { mode: "none", allowAnonymous: true } });
    expect(run({ ALLOCATION_LENS_CONFIG: allowed, HOSTNAME: "0.0.0.0" }).ok).toBe(true);
    expect(run({ ALLOCATION_LENS_CONFIG: configFile("local.yaml", {}), HOSTNAME: "127.0.0.1" }).ok).toBe(true);
    expect(run({ ALLOCATION_LENS_CONFIG: configFile("local2.yaml", {}) })).toMatchObject({ ok: true, settings: { host: "127.0.0.1", port: 3000 } });
    const proxy = configFile("proxy.yaml", { auth: { mode: "proxy", trustedProxies: ["10.0.0.0/8"] } });
    expect(run({ ALLOCATION_LENS_CONFIG: proxy, HOSTNAME: "0.0.0.0" }).ok).toBe(true);
  });

  it("the embedded demo (no configuration) is loopback only", () => {
    expect(run({})).toMatchObject({ ok: true, settings: { host: "127.0.0.1", demo: true, configFile: undefined } });
    const r = run({ HOSTNAME: "0.0.0.0" });
    expect(!r.ok && r.message).toContain("embedded demo cluster");
  });

  it("token mode: a token shorter than 32 characters stops the start, named by file and line, never quoted", () => {
    const tokens = path.join(dir, "tokens");
    fs.writeFileSync(tokens, `# portal\n${"a".repeat(40)}\n\nhunter2-is-short\n`);
    const file = configFile("token.yaml", { auth: { mode: "token", tokenFile: tokens } });
    const r = run({ ALLOCATION_LENS_CONFIG: file, HOSTNAME: "0.0.0.0" });
    expect(r.ok).toBe(false);
    const m = !r.ok ? r.message : "";
    expect(m).toContain(`${tokens} line 4: a token must be at least 32 characters`);
    expect(m).not.toContain("hunter2");
    fs.writeFileSync(tokens, `${"a".repeat(40)}\n`);
    expect(run({ ALLOCATION_LENS_CONFIG: file, HOSTNAME: "0.0.0.0" }).ok).toBe(true);
  });

  it("limits and demo mode come from the configuration; a bad configuration names each problem", () => {
    const file = configFile("limits.yaml", { server: { maxBodyBytes: 4096, maxConnections: 50 }, demo: { control: "http://127.0.0.1:1", controlTokenFile: "/x" } });
    const r = run({ ALLOCATION_LENS_CONFIG: file });
    expect(r).toMatchObject({ ok: true, settings: { demo: true, limits: { maxBodyBytes: 4096, maxConnections: 50, headersTimeoutSeconds: 10 } } });
    const bad = configFile("bad.yaml", { server: { maxBodyBytes: -1, colour: "red" } });
    const b = run({ ALLOCATION_LENS_CONFIG: bad });
    expect(!b.ok && b.message).toMatch(/server\.maxBodyBytes/);
    expect(!b.ok && b.message).toMatch(/colour/);
    expect(run({ PORT: "http" }).ok).toBe(false);
  });

  it("without a configuration and without the source tree (the image): the no-configuration message", () => {
    const r = run({}, dir);
    expect(!r.ok && r.message).toContain("no configuration: set ALLOCATION_LENS_CONFIG; the embedded demo needs the source tree (npm start)");
  });
});

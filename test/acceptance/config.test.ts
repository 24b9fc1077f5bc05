/**
 * Configuration errors: a configuration file with several errors makes the server exit non-zero before serving, naming
 * each bad field. The real boot path (server/boot.ts, startServerRuntime) runs in a child process as the server runs it
 * (react-server conditions, tsx for TypeScript). A file path inside a valid configuration that cannot be read (a TLS file)
 * is reported when the source connects: a source error naming the file, not a crash. An error never shows a credential
 * the file carries (a password in a URL, a header value, a token, anything under auth), neither in-process nor on the
 * server's stderr.
 */
import fs from "node:fs";
import path from "node:path";
import YAML from "yaml";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runProcess } from "@allocation-lens/test-support/processes";
import { tempDir } from "@allocation-lens/test-support/tmp";
import { ConfigError, loadConfigFile } from "@/server/config";
import { ClusterPoller } from "@/server/poller";
import { startDemoCluster, type DemoCluster } from "@allocation-lens/demo-cluster/internal/cluster";

const REPO = path.resolve(import.meta.dirname, "../..");
const dir = tempDir("lens-config-");

/** Runs the server's boot with ALLOCATION_LENS_CONFIG=file; exit code and output, bounded. */
function boot(file: string, timeoutMs = 60_000): Promise<{ code: number | string; stdout: string; stderr: string }> {
  const args = ["--conditions=react-server", "--import", "tsx", "-e", "import('./server/boot.ts').then((m) => (m.startServerRuntime ?? m.default.startServerRuntime)())"];
  return runProcess(process.execPath, args, { cwd: REPO, env: { ...process.env, ALLOCATION_LENS_CONFIG: file, NODE_OPTIONS: "" } }, timeoutMs);
}

describe("configuration errors", () => {
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it("a file with several errors exits 1 before serving and names each bad field, its value and what is expected", async () => {
    const file = path.join(dir, "bad.yaml");
    fs.writeFileSync(
      file,
      YAML.stringify({
        clusters: [
          {
            name: "Prod_EU",
            pollIntervalSeconds: 0,
            pollInterval: 15,
            targetAllocators: {
              "per-node": { url: "ftp://ta.example", flavor: "cw", collectors: { namespace: "", selector: { "bad key!": "x" } } },
            },
          },
        ],
        history: { retentionDays: -1 },
      }),
    );
    const r = await boot(file);
    expect(r.code, r.stdout + r.stderr).toBe(1);
    const err = r.stderr;
    expect(err).toContain(file);
    for (const [field, detail] of [
      ["clusters[0].name", '"Prod_EU"'],
      ["clusters[0].pollIntervalSeconds", "0"],
      ["clusters[0]", "pollInterval"], // the unknown key
      ["clusters[0].targetAllocators.per-node.url", '"ftp://ta.example"'],
      ["clusters[0].targetAllocators.per-node.flavor", '"cw"'],
      ["clusters[0].targetAllocators.per-node.collectors.namespace", "namespace"],
      ["clusters[0].targetAllocators.per-node.collectors.selector.bad key!", ""],
      ["history.retentionDays", "-1"],
    ]) {
      const line = err.split("\n").find((l) => l.includes(`${field}:`) && l.includes(detail));
      expect(line, `a line naming ${field} with ${detail} in:\n${err}`).toBeTruthy();
    }
    expect(err).toMatch(/flavor: expected "upstream" or "cloudwatch"/);
    expect(r.stdout).not.toMatch(/clusters:/); // nothing was started
  }, 90_000);

  const SECRET = "S3cretPa55";
  /** Bad files that carry a credential, each wrong in another way. */
  const secretFiles: Record<string, string> = {
    "userinfo.yaml": YAML.stringify({
      clusters: [{ name: "prod", targetAllocators: { "per-node": { url: `https://bob:${SECRET}@ta.example:80`, flavor: "cloudwatch", collectors: { namespace: "x", selector: {} } } } }],
      history: { prometheus: { url: `https://alice:${SECRET}@mimir.example.com/prometheus`, headers: { Authorization: `Bearer ${SECRET}` }, bearerTokenFile: { token: SECRET } } },
      auth: { mode: SECRET, tokenFile: [SECRET] },
      demo: { control: `not a URL ${SECRET}` },
    }),
    "malformed-url.yaml": `clusters:\n  - name: prod\n    targetAllocators:\n      per-node: { url: "ftp://alice:${SECRET}@ta", flavor: upstream, collectors: { namespace: x, selector: {} } }\nhistory:\n  prometheus:\n    url: https//alice:${SECRET}@mimir\n    password: ${SECRET}\n`,
    "broken-quote.yaml": `history:\n  prometheus:\n    url: "https://alice:${SECRET}@mimir\n`,
    "alias.yaml": `clusters:\n  - name: prod\nhistory:\n  prometheus:\n    url: http://p:9090\n    headers: { X-Api-Key: *${SECRET} }\n`,
  };

  it("an error never shows the credentials the file carries (loadConfigFile)", () => {
    for (const [name, text] of Object.entries(secretFiles)) {
      const file = path.join(dir, name);
      fs.writeFileSync(file, text);
      let message = "";
      try {
        loadConfigFile(file);
      } catch (e) {
        expect(e, name).toBeInstanceOf(ConfigError);
        message = (e as Error).message;
      }
      expect(message, name).toContain(file);
      expect(message.split("\n").length, name).toBeGreaterThan(1);
      expect(message.includes(SECRET), `${name}:\n${message}`).toBe(false);
    }
  });

  it("the server's stderr never shows them either, and still names the fields", async () => {
    const file = path.join(dir, "userinfo.yaml");
    fs.writeFileSync(file, secretFiles["userinfo.yaml"]);
    const r = await boot(file);
    expect(r.code, r.stdout + r.stderr).toBe(1);
    expect((r.stdout + r.stderr).includes(SECRET), r.stderr).toBe(false);
    for (const field of ["clusters[0].targetAllocators.per-node.url", "history.prometheus.url", "history.prometheus.bearerTokenFile", "auth.mode", "demo.control"]) {
      expect(r.stderr, field).toContain(`${field}:`);
    }
    expect(r.stderr).toContain('(got "https://***@mimir.example.com/prometheus")');
  }, 90_000);

  // The same boot path, in-process (a spawn costs ~15 s of TypeScript compiling on a small machine): what boot prints.
  it("a configuration file that cannot be read, or broken YAML, is a ConfigError naming the file", () => {
    const missing = path.join(dir, "nope.yaml");
    expect(() => loadConfigFile(missing)).toThrow(ConfigError);
    const message = (() => {
      try {
        loadConfigFile(missing);
        return "";
      } catch (e) {
        return (e as Error).message;
      }
    })();
    expect(message).toContain(missing);
    expect(message).toContain("cannot read the file: ENOENT");
    const broken = path.join(dir, "broken.yaml");
    fs.writeFileSync(broken, "clusters:\n  - name: a\n   bad: [\n");
    expect(() => loadConfigFile(broken)).toThrow(/YAML/);
  });

  describe("an unreadable TLS file in a valid configuration", () => {
    let demo: DemoCluster;
    let poller: ClusterPoller | undefined;
    beforeAll(async () => {
      demo = await startDemoCluster({ pollInterval: 1, nodes: 3, flavor: "cloudwatch" });
    });
    afterAll(async () => {
      await poller?.stop();
      await demo?.close();
    });

    it("is reported at connection time as an error of that TA's source naming which file; the other TA and Kubernetes work", async () => {
      const doc = YAML.parse(fs.readFileSync(demo.info.dashboardConfig, "utf8"));
      const missing = path.join(dir, "missing-ca.pem");
      doc.clusters[0].targetAllocators["per-node"].tls.ca = missing;
      const file = path.join(dir, "unreadable-ca.yaml");
      fs.writeFileSync(file, YAML.stringify(doc));
      const config = loadConfigFile(file); // valid: paths are read when the source connects
      poller = new ClusterPoller(config.clusters[0]);
      poller.start();
      const s = await poller.next(15_000).catch(() => null);
      expect(s, "a first snapshot within 15 s").not.toBeNull();
      const src = s!.sources.find((x) => x.source === "demo/ta/per-node")!;
      expect(src.state).toBe("error");
      expect(src.error).toMatchObject({ kind: "config" });
      // which file and why; where it is goes to the server log only
      expect(src.error!.message).toBe("cannot read the configured CA certificate file (ENOENT; see the server log)");
      expect(JSON.stringify(s!.sources)).not.toContain(missing);
      expect(s!.sources.find((x) => x.source === "demo/ta/cluster-scraper")!.state).toBe("ok");
      expect(s!.analysis.roles["cluster-scraper"]!.targets).toBeGreaterThan(0);
    });
  });
});

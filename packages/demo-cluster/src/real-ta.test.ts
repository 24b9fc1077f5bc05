import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import YAML from "yaml";
import { RealTa, realTaConfig, withStrategy } from "./real-ta";

const OPERATOR = YAML.stringify({
  allocation_strategy: "per-node",
  allocation_fallback_strategy: "consistent-hashing",
  collector_selector: { matchlabels: { app: "agent" } },
  prometheus_cr: { enabled: true },
  config: {
    scrape_configs: [
      { job_name: "kubelet", kubernetes_sd_configs: [{ role: "node" }] },
      { job_name: "probe", static_configs: [{ targets: ["10.0.0.1:443"] }] },
    ],
  },
});

describe("the real allocator's configuration", () => {
  it("sets the strategy; the fallback only for per-node", () => {
    expect(YAML.parse(withStrategy(OPERATOR, "per-node", null))).not.toHaveProperty("allocation_fallback_strategy");
    expect(YAML.parse(withStrategy(OPERATOR, "per-node", "consistent-hashing")).allocation_fallback_strategy).toBe("consistent-hashing");
    const lw = YAML.parse(withStrategy(OPERATOR, "least-weighted", "consistent-hashing"));
    expect(lw.allocation_strategy).toBe("least-weighted");
    expect(lw).not.toHaveProperty("allocation_fallback_strategy");
  });

  it("keeps the operator's text otherwise, adds the grace period and, when asked, the https block", () => {
    const plain = YAML.parse(realTaConfig({ configText: OPERATOR, strategy: "consistent-hashing", fallback: null, graceSeconds: 7 }));
    expect(plain.collector_selector).toEqual({ matchlabels: { app: "agent" } });
    expect(plain.config.scrape_configs[0].job_name).toBe("kubelet");
    expect(plain.collector_not_ready_grace_period).toBe("7s");
    expect(plain).not.toHaveProperty("https");
    const tls = YAML.parse(realTaConfig({ configText: OPERATOR, strategy: "per-node", fallback: null, graceSeconds: 30, https: { ca: "/ca", cert: "/c", key: "/k" } }, "127.0.0.1:9443"));
    expect(plain.config.scrape_configs[0].kubernetes_sd_configs).toEqual([{ role: "node" }]);
    const outside = YAML.parse(realTaConfig({ configText: OPERATOR, strategy: "per-node", fallback: null, graceSeconds: 30, kubeconfig: "/demo/kubeconfig" }));
    expect(outside.config.scrape_configs[0].kubernetes_sd_configs).toEqual([{ role: "node", kubeconfig_file: "/demo/kubeconfig" }]);
    expect(outside.config.scrape_configs[1]).toEqual({ job_name: "probe", static_configs: [{ targets: ["10.0.0.1:443"] }] });
    expect(tls.https).toEqual({ enabled: true, listen_addr: "127.0.0.1:9443", ca_file_path: "/ca", tls_cert_file_path: "/c", tls_key_file_path: "/k" });
  });
});

describe("RealTa.start", () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
  });

  it("a binary that exits before it is ready: the error says so and shows its log", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "real-ta-test-"));
    dirs.push(dir);
    const fake = path.join(dir, "otel-allocator");
    fs.writeFileSync(fake, "#!/bin/sh\necho 'cannot reach the Kubernetes API' >&2\nexit 3\n", { mode: 0o755 });
    const started = RealTa.start({ binary: fake, version: "v0.0.0", configText: OPERATOR, strategy: "per-node", fallback: null, graceSeconds: 30, kubeconfig: "/nonexistent", dir, host: "127.0.0.1" });
    await expect(started).rejects.toThrow(/exited \(3\) before it was ready[\s\S]*cannot reach the Kubernetes API/);
    expect(fs.readFileSync(path.join(dir, "targetallocator.yaml"), "utf8")).toContain("allocation_strategy: per-node");
  });
});

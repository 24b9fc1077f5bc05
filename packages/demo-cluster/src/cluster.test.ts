import { describe, expect, it } from "vitest";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { startDemoCluster } from "./cluster";

describe("the demo's files", () => {
  // the directory holds the TLS keys, the control token and the dashboard's history: a temporary one must not outlive the demo
  it("removes the temporary directory it made at close()", async () => {
    const demo = await startDemoCluster({ flavor: "upstream", nodes: 2, seed: 3 });
    const dir = path.dirname(demo.info.dashboardConfig);
    expect(fs.existsSync(demo.info.controlTokenFile)).toBe(true);
    await demo.close();
    expect(fs.existsSync(dir)).toBe(false);
  });

  it("leaves a directory it was given", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "allocation-lens-given-"));
    try {
      const demo = await startDemoCluster({ flavor: "upstream", nodes: 2, seed: 3, dir });
      await demo.close();
      expect(fs.readdirSync(dir)).toEqual(expect.arrayContaining(["allocation-lens.yaml", "control-token"]));
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

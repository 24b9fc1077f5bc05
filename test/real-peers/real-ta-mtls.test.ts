/**
 * The dashboard on upstream's real Target Allocator over mTLS: the allocator's own `https` listener (the demo's CA, a
 * client certificate required), polled by the dashboard with the client certificate; a client without one is refused.
 */
import fs from "node:fs";
import https from "node:https";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as api from "@/lib/api/schemas";
import { realTaSuite } from "@allocation-lens/test-support/real-ta";
import { startLens, type Lens } from "@/test/acceptance/support";
import { rawAllocator } from "@/test/real-peers/real-ta";

realTaSuite("the dashboard on upstream's real Target Allocator over mTLS", (ta) => {
  describe("https listener, client certificate required", () => {
    let lens: Lens;
    beforeAll(async () => {
      lens = await startLens({ flavor: "upstream", ta: "real", realTa: ta, https: true });
    }, 120_000);
    afterAll(async () => lens?.stop());

    it("the dashboard polls it over TLS with the client certificate; a client without one is refused", async () => {
      const info = lens.demo.info.targetAllocators["per-node"]!;
      expect(info.url).toMatch(/^https:/);
      const s = api.summaryViewSchema.parse((await lens.get("/api/v1/summary")).body);
      expect(s.sources.every((x) => x.state === "ok"), JSON.stringify(s.sources)).toBe(true);
      const raw = await rawAllocator(lens);
      expect(s.roles["per-node"]!.targets).toBe([...raw.byCollector.values()].reduce((n, l) => n + l.length, 0));
      const refused = await new Promise<string>((resolve) => {
        const req = https.get(`${info.url}/jobs`, { ca: fs.readFileSync(info.ca!), timeout: 5000 }, (res) => resolve(`answered ${res.statusCode}`));
        req.on("error", (e) => resolve(`refused: ${e.message}`));
      });
      expect(refused).toMatch(/^refused/);
      const accepted = await new Promise<number>((resolve, reject) => {
        const req = https.get(`${info.url}/jobs`, { ca: fs.readFileSync(info.ca!), cert: fs.readFileSync(info.cert!), key: fs.readFileSync(info.key!), timeout: 5000 }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        });
        req.on("error", reject);
      });
      expect(accepted).toBe(200);
    });
  });
});

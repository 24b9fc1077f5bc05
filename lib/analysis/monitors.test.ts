import { describe, expect, it } from "vitest";
import { ROLES, type MonitorRef, type Role } from "@/lib/model";
import { DEFAULT_SCRAPER_ANNOTATION as NEW_KEY, EARLIER_SCRAPER_ANNOTATION as OLD_KEY } from "@/lib/routing";
import { monitorRef, monitorRows } from "@/test/fixtures/monitors";

const mon = monitorRef;
/** Both TAs read `taKey` (one operator build); the dashboard is configured with `configured`. */
const run = (monitors: MonitorRef[], taKey: string, configured: string | null = null, roles: readonly Role[] = ROLES) =>
  monitorRows(monitors, Object.fromEntries(roles.map((r) => [r, taKey])), configured);

const world = () => [
  mon("plain"),
  mon("new-cs", { [NEW_KEY]: "cluster-scraper" }),
  mon("old-cs", { [OLD_KEY]: "cluster-scraper" }),
  mon("new-other", { [NEW_KEY]: "per-node" }),
];

describe("analyzeMonitors: the scraper-annotation keys", () => {
  it("by default both spellings route to the cluster-scraper, and each row says which key it carries", () => {
    const r = run(world(), NEW_KEY);
    expect(r.row("new-cs")).toMatchObject({ expectedRole: "cluster-scraper", annotation: "cluster-scraper", scraperAnnotations: [{ key: NEW_KEY, value: "cluster-scraper" }] });
    expect(r.row("old-cs")).toMatchObject({ expectedRole: "cluster-scraper", annotation: "cluster-scraper", scraperAnnotations: [{ key: OLD_KEY, value: "cluster-scraper" }] });
    expect(r.row("plain")).toMatchObject({ expectedRole: "per-node", annotation: null, scraperAnnotations: [] });
    expect(r.row("new-other")).toMatchObject({ expectedRole: "per-node", annotation: "per-node" });
  });

  it("TAs of the merged build (new key): a monitor with the old key is held per-node and is misrouted, not owned", () => {
    const r = run(world(), NEW_KEY);
    expect(r.row("old-cs")).toMatchObject({ holders: ["per-node"], expectedRole: "cluster-scraper", ownership: "misrouted" });
    expect(r.row("new-cs")).toMatchObject({ holders: ["cluster-scraper"], ownership: "ok" });
    expect(r.counts).toEqual({ ok: 3, double: 0, orphaned: 0, misrouted: 1 });
  });

  it("TAs of the earlier build (old key): a monitor with the new key is held per-node and is misrouted, not owned", () => {
    const r = run(world(), OLD_KEY);
    expect(r.row("new-cs")).toMatchObject({ holders: ["per-node"], expectedRole: "cluster-scraper", ownership: "misrouted", scraperAnnotations: [{ key: NEW_KEY, value: "cluster-scraper" }] });
    expect(r.row("old-cs")).toMatchObject({ holders: ["cluster-scraper"], ownership: "ok" });
    expect(r.counts).toEqual({ ok: 3, double: 0, orphaned: 0, misrouted: 1 });
  });

  it("a configured key alone is recognised: the other spelling counts as no annotation", () => {
    const r = run(world(), OLD_KEY, OLD_KEY);
    expect(r.row("new-cs")).toMatchObject({ expectedRole: "per-node", annotation: null, scraperAnnotations: [], holders: ["per-node"], ownership: "ok" });
    expect(r.row("old-cs")).toMatchObject({ expectedRole: "cluster-scraper", ownership: "ok" });
    // configured with the key the TAs do not read: what they hold by the old key is misrouted by the dashboard's rule
    const wrong = run(world(), OLD_KEY, NEW_KEY);
    expect(wrong.row("old-cs")).toMatchObject({ expectedRole: "per-node", holders: ["cluster-scraper"], ownership: "misrouted" });
    expect(wrong.row("new-cs")).toMatchObject({ expectedRole: "cluster-scraper", holders: ["per-node"], ownership: "misrouted" });
  });

  it("keys that disagree leave the expected role unknown: held by one TA it is misrouted, never ok", () => {
    const both = [mon("split", { [NEW_KEY]: "per-node", [OLD_KEY]: "cluster-scraper" }), mon("agree", { [NEW_KEY]: "cluster-scraper", [OLD_KEY]: "cluster-scraper" })];
    for (const taKey of [NEW_KEY, OLD_KEY]) {
      const r = run(both, taKey);
      expect(r.row("split")).toMatchObject({ expectedRole: null, ownership: "misrouted", annotation: "per-node" });
      expect(r.row("split").scraperAnnotations).toEqual([{ key: NEW_KEY, value: "per-node" }, { key: OLD_KEY, value: "cluster-scraper" }]);
      expect(r.row("agree")).toMatchObject({ expectedRole: "cluster-scraper", holders: ["cluster-scraper"], ownership: "ok" });
    }
    expect(run(both, NEW_KEY).row("split").holders).toEqual(["per-node"]);
    expect(run(both, OLD_KEY).row("split").holders).toEqual(["cluster-scraper"]);
    // configured: only that key counts, so there is nothing to disagree with
    expect(run(both, OLD_KEY, OLD_KEY).row("split")).toMatchObject({ expectedRole: "cluster-scraper", ownership: "ok" });
  });

  it("two TAs configured, one never read: monitors keep their routed owner (not the one TA that answers)", () => {
    const r = monitorRows(world(), { "per-node": null, "cluster-scraper": NEW_KEY });
    expect(r.row("plain")).toMatchObject({ expectedRole: "per-node", holders: [], ownership: "orphaned" });
    expect(r.row("new-cs")).toMatchObject({ expectedRole: "cluster-scraper", holders: ["cluster-scraper"], ownership: "ok" });
  });

  it("with a single TA configured, that TA is every monitor's expected owner, whatever the keys say", () => {
    const r = run([...world(), mon("split", { [NEW_KEY]: "per-node", [OLD_KEY]: "cluster-scraper" })], NEW_KEY, null, ["per-node"]);
    expect(r.rows.map((m) => m.expectedRole)).toEqual(Array(5).fill("per-node"));
  });
});

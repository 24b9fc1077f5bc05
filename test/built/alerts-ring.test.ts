/**
 * The ring alerts on a real Prometheus against the dashboard on the cloudwatch flavor at the size where they matter: the
 * per-node TA (per-node with the consistent-hashing fallback the fork's operator writes, as the demo's configuration states
 * it) builds a ring over every agent pod, and the simulated TA has the real allocators' limit of 1,061 collectors (it
 * crash-loops above it). Not upstream: adding and removing nodes there leaves targets briefly without a collector, which
 * upstream's sticky unassigned gauge keeps counting, and AllocationLensTaUnassignedGaugeWrong fires beside the ring alerts.
 *
 * - calm, 954 nodes (headroom 107, one above the warning): nothing fires or is pending;
 * - two nodes added (956 collectors, headroom 105): exactly AllocationLensTaRingNearLimit, with the headroom;
 * - 107 nodes added (1,061 collectors, headroom 0): AllocationLensTaRingNearLimit still; one more (1,062): the TA cannot
 *   build its ring and crash-loops: AllocationLensTaRingOverLimit (headroom -1) and, since the crashed TA does not
 *   answer, AllocationLensSourceDown for it; nothing else;
 * - after each heal (the added nodes removed, the TA started again) nothing fires.
 *
 * Each firing alert's dashboard_url (its path, on the built server polling the same demo) opens Diagnostics with the
 * ring check warning or failing with the collector count, in Chromium; screenshots under artifacts/alerts/. The
 * Prometheus part needs Debian's prometheus, the browser part the build and chromium: skipped with the reason without
 * them, a failure under ALLOCATION_LENS_REQUIRE_PEERS=1.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RING_LIMIT } from "@/lib/alerts/rules";
import { STATUS_WORD } from "@/lib/views/diagnostics-view";
import { healAndSettle, inject, truthShows, waitFor, type Lens } from "@/test/acceptance/support";
import { expectQuiet, HAS_PROMETHEUS, key, startLensWithPrometheus, waitForFiring, waitForView, type Prom, type PromAlert } from "@/test/built/alerts";
import { missingUi, startAlertViews, type AlertViews } from "@/test/built/alerts-ui";

/** 107 collectors of headroom: one more than the warning's 106 */
const NODES = RING_LIMIT - 107;
const UI_MISSING = missingUi("the ring alerts' browser checks");

describe.skipIf(!HAS_PROMETHEUS)(`the ring alerts on Prometheus: cloudwatch, per-node with the consistent-hashing fallback, ${NODES} nodes`, () => {
  let lens: Lens;
  let prom: Prom;
  let stop: (() => Promise<void>) | undefined;
  let views: AlertViews | undefined;
  let cluster: string;

  beforeAll(async () => {
    ({ lens, prom, stop } = await startLensWithPrometheus({ flavor: "cloudwatch", tracking: "ready-only", nodes: NODES, restartBackoffMs: 500 }));
    cluster = lens.cluster;
    if (UI_MISSING.length === 0) views = await startAlertViews(lens);
  }, 300_000);

  afterAll(async () => {
    await views?.stop();
    await stop?.();
  });

  /** Waits until the per-node TA holds `n` collectors and the dashboard's headroom says so. */
  async function ringOf(n: number): Promise<void> {
    await truthShows(lens, `${n} collectors in the per-node TA`, (t) => t.collectors.filter((c) => c.role === "per-node" && c.eligible).length === n, 60_000);
    let last: number | undefined;
    await waitFor(`allocation_lens_ta_ring_headroom ${RING_LIMIT - n}`, async () => (last = (await lens.metrics()).value("allocation_lens_ta_ring_headroom", { cluster, role: "per-node" })) === RING_LIMIT - n, {
      timeoutMs: 30_000,
      intervalMs: 250,
      last: () => last,
    });
  }
  /** Adds nodes (each with its agent pod) until the demo has NODES + `total` */
  async function addNodes(total: number): Promise<void> {
    while (lens.demo.store.list("nodes").length < NODES + total) await inject(lens, { fault: "node-add" });
    expect(lens.demo.store.list("nodes").length).toBe(NODES + total);
  }
  /** Opens the alert's dashboard_url on the built server: Diagnostics with the ring check in `status`, naming `count` collectors. */
  async function checkView(a: PromAlert, status: "warn" | "fail", count: number, shot: string): Promise<void> {
    expect(a.annotations.dashboard_url).toBe(`http://dashboard.test/diagnostics?cluster=${cluster}`);
    await views?.opens(a.annotations.dashboard_url, shot, async (page) => {
      // the ring check, first among the checks that do not pass, with its status and the ring's collectors
      const check = page.getByTestId("check-ta-ring-limit");
      await expect.poll(async () => ((await check.count()) ? check.innerText() : ""), { timeout: 30_000 }).toContain(`${count.toLocaleString("en-US")} collectors`);
      const text = await check.innerText();
      expect(text).toContain(STATUS_WORD[status]);
      expect(text).toContain(`Consistent-hashing rings within ${RING_LIMIT.toLocaleString("en-US")} collectors`);
    });
  }

  it(`calm at ${NODES} collectors: nothing fires or is pending`, async () => {
    expect((await lens.metrics()).value("allocation_lens_ta_ring_headroom", { cluster, role: "per-node" })).toBe(107);
    await expectQuiet(prom);
    await waitForView(lens, []);
  });

  it("two nodes added, headroom 105: AllocationLensTaRingNearLimit with the headroom; quiet after the heal", async () => {
    await addNodes(2);
    await ringOf(NODES + 2);
    const want = key("AllocationLensTaRingNearLimit", { cluster, role: "per-node" });
    const [a] = (await waitForFiring(prom, [want], 90_000, { [want]: 105 })).filter((x) => x.state === "firing");
    expect(Number(a.value)).toBe(105);
    expect(a.annotations.summary).toBe(`The per-node TA's ring has room for 105 more collectors (${cluster})`);
    expect(a.annotations.runbook_url).toBe("https://runbooks.test/docs/runbooks/ta-ring-near-limit.md");
    await waitForView(lens, [want]);
    await checkView(a, "warn", NODES + 2, "dashboard-url-ta-ring-near-limit");
    await healAndSettle(lens, 60_000);
    await ringOf(NODES);
    await expectQuiet(prom);
    await waitForView(lens, []);
  }, 240_000);

  it(`${RING_LIMIT - NODES + 1} nodes added, 1,062 collectors: the TA crash-loops: AllocationLensTaRingOverLimit and its source down; quiet after the heal`, async () => {
    // to the limit first, the TA settled at 1,061 collectors (headroom 0: still near the limit, not over)
    await addNodes(RING_LIMIT - NODES);
    await ringOf(RING_LIMIT);
    // the alert fired on the way (headroom 106 and below); its value follows the ring to 0
    const nearKey = key("AllocationLensTaRingNearLimit", { cluster, role: "per-node" });
    const near = await waitForFiring(prom, [nearKey], 90_000, { [nearKey]: 0 });
    expect(Number(near.find((x) => x.state === "firing")!.value)).toBe(0);
    // one collector more
    await addNodes(RING_LIMIT - NODES + 1);
    await truthShows(lens, "the per-node TA crashed", () => lens.demo.allocators["per-node"]!.crashed !== null, 30_000);
    const over = key("AllocationLensTaRingOverLimit", { cluster, role: "per-node" });
    const down = key("AllocationLensSourceDown", { cluster, source: "ta/per-node" });
    const alerts = await waitForFiring(prom, [over, down], 90_000, { [over]: -1 });
    const a = alerts.find((x) => x.state === "firing" && x.labels.alertname === "AllocationLensTaRingOverLimit")!;
    expect(Number(a.value)).toBe(-1);
    expect(a.labels.severity).toBe("critical");
    expect(a.annotations.summary).toBe(`The per-node TA's ring is over its limit by -1 (${cluster})`);
    await waitForView(lens, [over, down]);
    await checkView(a, "fail", RING_LIMIT + 1, "dashboard-url-ta-ring-over-limit");
    // the TA starts again once the collectors fit
    await healAndSettle(lens, 120_000);
    await ringOf(NODES);
    await expectQuiet(prom);
    await waitForView(lens, []);
  }, 300_000);
});

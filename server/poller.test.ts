/**
 * ClusterPoller against hand-made TAs and the demo Kubernetes API on 127.0.0.1: a TA that dribbles its answers cannot
 * hold a poll past its deadline (polls go on, that TA is stale with its last good data and a reason naming the deadline,
 * the other role stays fresh), and API requests waiting for the first poll are bounded in time and number.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseConfig, type ClusterConfig } from "@/lib/config/schema";
import { ClusterPoller, MAX_FIRST_POLL_WAITERS } from "@/server/poller";
import type { Snapshot } from "@/lib/snapshot";
import { startTestKube } from "@/test/fixtures/kube";
import { until } from "@allocation-lens/test-support/wait";
import { dribble, jobAnswer, NS, SELECTOR, sendJson, startFakeTa } from "@/test/fixtures/ta";

let dir: string;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "al-poller-"));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const cleanups: (() => Promise<unknown> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function cluster(kubeconfig: string, tas: Record<string, { url: string } & Record<string, unknown>>): ClusterConfig {
  const targetAllocators = Object.fromEntries(
    Object.entries(tas).map(([role, ta]) => [role, { flavor: "upstream", timeoutSeconds: 2, collectors: { namespace: NS, selector: SELECTOR }, ...ta }]),
  );
  const r = parseConfig({ clusters: [{ name: "p", kubernetes: { kubeconfig }, pollIntervalSeconds: 1, targetAllocators }] });
  if (!r.ok) throw new Error(r.errors.join("\n"));
  return r.config.clusters[0];
}

const status = (s: Snapshot, role: string) => s.sources.find((x) => x.source === `p/ta/${role}`)!;

describe("ClusterPoller", () => {
  it("a TA that dribbles its answers is cut at pollTimeoutSeconds: polls go on, it is stale with its last good data, the other role stays fresh", async () => {
    const kube = await startTestKube(fs.mkdtempSync(path.join(dir, "k-")));
    const slow = await startFakeTa({ a: 2 });
    const fast = await startFakeTa({ b: 1 });
    cleanups.push(() => kube.close(), () => slow.close(), () => fast.close());
    const log: string[] = [];
    const poller = new ClusterPoller(
      cluster(kube.kubeconfig, { "per-node": { url: slow.url, pollTimeoutSeconds: 2 }, "cluster-scraper": { url: fast.url } }),
      (l) => log.push(l),
    );
    cleanups.push(() => poller.stop());
    poller.start();
    await until(() => poller.latest, (s) => status(s, "per-node").state === "ok" && status(s, "cluster-scraper").state === "ok", 10_000, "first good poll");

    // headers at once, then a byte every 200 ms: each answer would take minutes, and an idle timeout never fires
    slow.jobRoute = dribble(JSON.stringify(jobAnswer("a", 50)), 200);
    const stale = await until(() => poller.latest, (s) => status(s, "per-node").state === "stale", 10_000, "per-node stale");
    expect(status(stale, "per-node").error).toMatchObject({ kind: "timeout", source: "p/ta/per-node", message: "reading the TA took longer than 2 s" });
    expect(status(stale, "per-node").error!.hint).toContain("targetAllocators.per-node.pollTimeoutSeconds");
    expect(stale.analysis.roles["per-node"]!.targets).toBe(2); // the last good data, still served

    // the next polls come: the snapshot moves on and the other role is read at each of them
    const at = stale.at;
    const scraperSeen = status(stale, "cluster-scraper").lastSuccess!;
    const later = await until(() => poller.latest, (s) => s.at > at && status(s, "cluster-scraper").lastSuccess! > scraperSeen && status(s, "per-node").state === "stale", 10_000, "a later poll");
    expect(later.pollMs).toBeLessThan(4_000);
    expect(status(later, "cluster-scraper").state).toBe("ok");
    expect(log.filter((l) => l.includes("p/ta/per-node: timeout"))).toHaveLength(1); // once per change of error, not per poll

    slow.jobRoute = null;
    await until(() => poller.latest, (s) => status(s, "per-node").state === "ok", 10_000, "per-node back");
    expect(log.some((l) => l.includes("p/ta/per-node: recovered"))).toBe(true);
  });

  it("a suspended poller keeps nothing of its TAs: started again, it reads them afresh (no last good data to fall back on), and a reading in flight at the suspension is dropped", async () => {
    const kube = await startTestKube(fs.mkdtempSync(path.join(dir, "k-")));
    const ta = await startFakeTa({ a: 3 });
    cleanups.push(() => kube.close(), () => ta.close());
    const poller = new ClusterPoller(cluster(kube.kubeconfig, { "per-node": { url: ta.url, pollTimeoutSeconds: 2 } }), () => {});
    cleanups.push(() => poller.stop());
    poller.start();
    await until(() => poller.latest, (s) => status(s, "per-node").state === "ok", 10_000, "first good poll");

    // a reading in flight when the poller is suspended: its answer comes after, and is not kept
    let asked = 0;
    let release: () => void = () => {};
    const held = new Promise<void>((r) => (release = r));
    ta.jobRoute = (_req, res) => {
      asked++;
      void held.then(() => res.headersSent || res.writableEnded || (res.writeHead(200, { "Content-Type": "application/json" }), res.end(JSON.stringify(jobAnswer("a", 3)))));
    };
    await until(() => asked, (n) => n > 0, 10_000, "a reading in flight");
    await poller.suspend();
    expect(poller.latest).toBeUndefined();
    release();

    // the TA now fails: without last good data, the first poll after start says "error" with no targets, not "stale"
    ta.jobRoute = (_req, res) => sendJson(res, { error: "down" }, 500);
    poller.start();
    const after = await until(() => poller.latest, (s) => status(s, "per-node").state !== "starting", 10_000, "a poll after start");
    expect(status(after, "per-node").state).toBe("error");
    expect(after.analysis.roles["per-node"]?.targets ?? 0).toBe(0);

    ta.jobRoute = null;
    const back = await until(() => poller.latest, (s) => status(s, "per-node").state === "ok", 10_000, "the TA back");
    expect(back.analysis.roles["per-node"]!.targets).toBe(3);
  });

  it("requests waiting for the first poll: each leaves at its timeout, and past the cap they are refused at once", async () => {
    // never started: there is no snapshot, as while a first poll runs
    const poller = new ClusterPoller(cluster(path.join(dir, "none.yaml"), { "per-node": { url: "http://127.0.0.1:1" } }), () => {});
    const timedOut = await Promise.all(Array.from({ length: 20 }, () => poller.next(50).catch((e: unknown) => e)));
    for (const e of timedOut) expect(e).toMatchObject({ reason: "timeout", message: "the first poll has not finished yet" });
    expect(poller.waiting).toBe(0);

    const held = Array.from({ length: MAX_FIRST_POLL_WAITERS }, () => poller.next(1_000).catch((e: unknown) => e));
    expect(poller.waiting).toBe(MAX_FIRST_POLL_WAITERS);
    const started = performance.now();
    const refused = await poller.next(60_000).catch((e: unknown) => e);
    expect(refused).toMatchObject({ reason: "full" });
    expect(performance.now() - started).toBeLessThan(100);
    expect(poller.waiting).toBe(MAX_FIRST_POLL_WAITERS);
    for (const e of await Promise.all(held)) expect(e).toMatchObject({ reason: "timeout" });
    expect(poller.waiting).toBe(0);
  });
});

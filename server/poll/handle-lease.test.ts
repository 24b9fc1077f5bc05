/**
 * ClusterHandle with `lease`: local answers from the worker, remote ones from the holder over the peer path, and the last
 * good answer when the source fails (a takeover's first poll pending: as it was; the holder out of reach: marked stale).
 * The worker is a fake (`ask`); the holder is a small HTTP server speaking the peer path.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import type { ClusterConfig } from "@/lib/config/schema";
import { ClusterHandle, type PollHost } from "@/server/poll/host";
import { loadPeerToken, type PeerToken } from "@/server/lease/peer";
import { HolderFollower } from "@/server/lease/follow";
import type { Answer, SnapshotMeta } from "@/server/poll/protocol";
import { holderSource } from "@/lib/lease/holder-stale";
import { waitFor } from "@allocation-lens/test-support/wait";

const config = { name: "prod", pollIntervalSeconds: 1 } as ClusterConfig;
const encode = (v: unknown, status = 200): Answer => ({ status, body: new TextEncoder().encode(JSON.stringify(v)) });
const decode = (a: Answer) => JSON.parse(new TextDecoder().decode(a.body));
const view = (at: number) => ({ at, pollIntervalMs: 1000, stale: [], cluster: "prod", sources: [] });
const meta = (at: number) => ({ cluster: "prod", at, polls: at, taRequests: {} }) as unknown as SnapshotMeta;

let dir: string;
let token: PeerToken;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "handle-test-"));
  fs.writeFileSync(path.join(dir, "token"), "t".repeat(40));
  token = loadPeerToken(path.join(dir, "token"));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

function fakeHost(ask: () => Promise<Answer>, peer?: PeerToken, workerUp = true): PollHost {
  return { ask, peer, workerUp, follower: peer ? new HolderFollower(peer) : undefined } as unknown as PollHost;
}

describe("ClusterHandle with lease", () => {
  it("local: while the worker's first poll after a takeover is pending (503), the last good answer is served as it was", async () => {
    let next: () => Promise<Answer> = async () => encode(view(1));
    const h = new ClusterHandle(config, fakeHost(() => next(), token), true);
    h.setMode({ kind: "local" });
    h.polled(meta(1), []);
    expect(decode(await h.answer({ route: "summary", search: "" }))).toEqual(view(1));
    next = async () => encode({ error: { code: "not_ready" } }, 503);
    h.polled(meta(2), []); // a new poll: the cache is dropped, the worker is asked again
    expect(decode(await h.answer({ route: "summary", search: "" }))).toEqual(view(1));
  });

  it("without lease, a failure is the answer (nothing kept)", async () => {
    let next: () => Promise<Answer> = async () => encode(view(1));
    const h = new ClusterHandle(config, fakeHost(() => next()), false);
    h.polled(meta(1), []);
    await h.answer({ route: "summary", search: "" });
    next = async () => encode({ error: { code: "not_ready" } }, 503);
    h.polled(meta(2), []);
    expect((await h.answer({ route: "summary", search: "" })).status).toBe(503);
  });

  it("without lease, while the worker starts again, the answer of its last poll is served however long the restart takes", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    try {
      const up = { workerUp: true };
      const host = { ask: async () => encode(view(1)), get workerUp() { return up.workerUp; } } as unknown as PollHost;
      const h = new ClusterHandle(config, host, false);
      h.polled(meta(1), []);
      const first = await h.answer({ route: "summary", search: "" });
      // the worker ends; the restart takes longer than an answer is kept (two poll intervals)
      up.workerUp = false;
      (host as unknown as { ask: () => Promise<Answer> }).ask = () => Promise.reject(Object.assign(new Error("the poll worker is restarting"), { status: 503 }));
      vi.setSystemTime(Date.now() + 60_000);
      expect(await h.answer({ route: "summary", search: "" })).toBe(first);
      // a question never answered before gets the worker's refusal
      await expect(h.answer({ route: "nodes", search: "" })).rejects.toMatchObject({ status: 503 });
      // running again: answers kept past their time are asked again
      up.workerUp = true;
      (host as unknown as { ask: () => Promise<Answer> }).ask = async () => encode(view(2));
      expect(decode(await h.answer({ route: "summary", search: "" }))).toEqual(view(2));
    } finally {
      vi.useRealTimers();
    }
  });

  describe("remote", () => {
    let holder: http.Server;
    let address: string;
    let at = 10;
    /** answers (not the poll summaries) come this late */
    let answerDelayMs = 0;
    beforeEach(async () => {
      answerDelayMs = 0;
      at = 10;
      holder = http.createServer(async (req, res) => {
        const u = new URL(req.url!, "http://x");
        if (req.headers.authorization !== token.authorization) {
          res.writeHead(401, { "X-Allocation-Lens-Peer": "refusal" });
          return res.end("{}");
        }
        if (u.pathname.endsWith("/metas")) {
          res.writeHead(200, { "Content-Type": "application/json", "X-Allocation-Lens-Peer": "metas" });
          return res.end(JSON.stringify({ metas: [{ cluster: "prod", meta: meta(at) }], refused: [] }));
        }
        const body = JSON.stringify({ ...view(at), route: u.searchParams.get("route") });
        if (answerDelayMs) await new Promise((r) => setTimeout(r, answerDelayMs));
        res.writeHead(200, { "Content-Type": "application/json", "X-Allocation-Lens-Peer": "answer" });
        res.end(body);
      });
      await new Promise<void>((r) => holder.listen(0, "127.0.0.1", r));
      address = `127.0.0.1:${(holder.address() as { port: number }).port}`;
    });
    afterEach(() => new Promise<void>((r) => (holder.listening ? holder.close(() => r()) : r())));

    it("keeps the last good answer at hand, without asking, while the holder is slow to give the next poll's", async () => {
      const h = new ClusterHandle(config, fakeHost(() => Promise.reject(new Error("the worker is not asked")), token), true);
      try {
        h.setMode({ kind: "remote", holder: "lens-b", address });
        await h.next(5000);
        expect(h.lastAnswer({ route: "summary", search: "" })).toBeUndefined();
        expect(decode(await h.answer({ route: "summary", search: "" })).at).toBe(10);
        answerDelayMs = 1000;
        at = 11;
        await waitFor("the next poll of the holder", () => h.latest?.at === 11, { timeoutMs: 5000, intervalMs: 20 });
        let fresh: { at: number } | undefined;
        const asking = h.answer({ route: "summary", search: "" }).then((a) => (fresh = decode(a)));
        expect(decode(h.lastAnswer({ route: "summary", search: "" })!)).toMatchObject({ at: 10, route: "summary", stale: [] });
        expect(fresh).toBeUndefined();
        await asking;
        expect(fresh!.at).toBe(11);
        expect(decode(h.lastAnswer({ route: "summary", search: "" })!).at).toBe(11);
        // a question never answered has none
        expect(h.lastAnswer({ route: "lost", search: "" })).toBeUndefined();
      } finally {
        h.close();
      }
    });

    it("follows the holder's polls, asks it for answers, and serves the last one marked stale when it is gone", async () => {
      const h = new ClusterHandle(config, fakeHost(() => Promise.reject(new Error("the worker is not asked")), token), true);
      h.setMode({ kind: "remote", holder: "lens-b", address });
      expect((await h.next(5000)).at).toBe(10);
      expect(decode(await h.answer({ route: "summary", search: "" }))).toMatchObject({ at: 10, route: "summary", stale: [] });
      at = 11;
      await waitFor("the next poll of the holder", () => h.latest?.at === 11, { timeoutMs: 5000, intervalMs: 20 });
      expect(decode(await h.answer({ route: "summary", search: "" })).at).toBe(11);

      holder.closeAllConnections();
      await new Promise<void>((r) => holder.close(() => r()));
      h.polled(meta(99), []); // news from the worker while remote: ignored
      expect(h.latest?.at).toBe(11);
      await waitFor("the holder to be missed", () => h.holderProblem !== null, { timeoutMs: 5000, intervalMs: 20 });
      const stale = decode(await h.answer({ route: "summary", search: "" }));
      expect(stale.at).toBe(11);
      expect(stale.stale).toEqual([expect.objectContaining({ source: holderSource("prod"), state: "stale", error: expect.objectContaining({ kind: "network" }) })]);
      expect(stale.sources.map((s: { source: string }) => s.source)).toEqual([holderSource("prod")]);
      expect(JSON.stringify(stale)).not.toContain(token.authorization.slice(7));
      // a question never answered before has nothing to fall back on
      const never = await h.answer({ route: "lost", search: "" }).catch((e) => e);
      expect(never).toMatchObject({ status: 503, code: "holder_unreachable" });
      h.close();
    });
  });
});

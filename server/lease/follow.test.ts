/**
 * Following the holders: one `metas` request per holder and round for every cluster followed there, served by the peer
 * path's own handler (servePeer) over HTTP; a holder that predates `metas` asked cluster by cluster.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { freePort } from "@allocation-lens/test-support/ports";
import { waitFor } from "@allocation-lens/test-support/wait";
import { HolderFollower } from "@/server/lease/follow";
import { loadPeerToken, PeerError, peerMeta, type PeerToken } from "@/server/lease/peer";
import { servePeer } from "@/server/lease/peer-server";
import type { HandleMode } from "@/server/poll/host";
import type { SnapshotMeta } from "@/server/poll/protocol";
import type { Runtime } from "@/server/runtime";

const meta = (cluster: string, at: number) => ({ cluster, at, polls: at, taRequests: {} }) as unknown as SnapshotMeta;

let dir: string;
let token: PeerToken;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "follow-test-"));
  fs.writeFileSync(path.join(dir, "token"), "f".repeat(40));
  token = loadPeerToken(path.join(dir, "token"));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

/** A holder: the peer path's handler on a runtime whose clusters are `held` (polled here, latest meta) or held elsewhere. */
async function holder(clusters: Record<string, { mode: HandleMode; latest?: SnapshotMeta }>, old = false) {
  const runtime = { pollers: new Map(Object.entries(clusters)), lease: { peer: token } } as unknown as Runtime;
  const asked: string[] = [];
  const server = http.createServer((req, res) => {
    const u = new URL(req.url!, "http://x");
    asked.push(`${u.pathname.split("/").pop()}?${u.searchParams.getAll("cluster").join(",")}`);
    if (old && u.pathname.endsWith("/metas")) {
      // a replica from before `metas`: the first cluster as `meta` takes it, then the route is unknown
      const first = clusters[u.searchParams.get("cluster") ?? ""];
      const [status, code] = !first ? [404, "unknown_cluster"] : first.mode.kind !== "local" ? [409, "not_holder"] : [404, "not_found"];
      res.writeHead(status, { "Content-Type": "application/json", "X-Allocation-Lens-Peer": "refusal" });
      return res.end(JSON.stringify({ error: { code } }));
    }
    void servePeer(runtime, req, res);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const address = `127.0.0.1:${(server.address() as { port: number }).port}`;
  return { address, asked, close: () => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r()))) };
}

/** What each followed cluster heard, in order. */
function listener() {
  const heard: Array<SnapshotMeta | PeerError> = [];
  return { heard, callbacks: { meta: (m: SnapshotMeta) => heard.push(m), problem: (e: PeerError) => heard.push(e) } };
}

const local: HandleMode = { kind: "local" };
const elsewhere: HandleMode = { kind: "remote", holder: "lens-c", address: "127.0.0.1:1" };

describe("following the holders", () => {
  it("asks one holder for every cluster followed there in one request a round, each told its own summary or refusal", async () => {
    const h = await holder({ a: { mode: local, latest: meta("a", 1) }, b: { mode: local, latest: meta("b", 2) }, c: { mode: elsewhere }, d: { mode: local } });
    const f = new HolderFollower(token);
    try {
      const [a, b, c, d] = [listener(), listener(), listener(), listener()];
      const stops = [f.follow(h.address, "a", 50, a.callbacks), f.follow(h.address, "b", 50, b.callbacks), f.follow(h.address, "c", 50, c.callbacks), f.follow(h.address, "d", 50, d.callbacks)];
      await waitFor("two rounds", () => a.heard.length >= 2 && d.heard.length >= 2, { timeoutMs: 5000, intervalMs: 10 });
      expect(h.asked.every((q) => q === "metas?a,b,c,d")).toBe(true);
      expect(a.heard[0]).toMatchObject({ cluster: "a", at: 1 });
      expect(b.heard[0]).toMatchObject({ cluster: "b", at: 2 });
      expect(c.heard[0]).toBeInstanceOf(PeerError);
      expect((c.heard[0] as PeerError).message).toBe(`the holder at ${h.address} answered HTTP 409 (not_holder)`);
      expect((d.heard[0] as PeerError).message).toBe(`the holder at ${h.address} answered HTTP 503 (not_ready)`);

      // one stops following: the next rounds name the others only, and it hears nothing more
      stops[1]();
      const heardB = b.heard.length;
      const from = h.asked.length;
      await waitFor("a round without b", () => h.asked.slice(from).includes("metas?a,c,d"), { timeoutMs: 5000, intervalMs: 10 });
      expect(b.heard.length).toBe(heardB);
      for (const stop of stops) stop();
      expect(f.followed()).toBe(0);
    } finally {
      f.close();
      await h.close();
    }
  });

  it("asks a holder that predates the batch cluster by cluster, and tells every follower when the holder is gone", async () => {
    const h = await holder({ a: { mode: local, latest: meta("a", 7) }, b: { mode: local, latest: meta("b", 8) } }, true);
    const f = new HolderFollower(token);
    try {
      const [a, b] = [listener(), listener()];
      f.follow(h.address, "a", 50, a.callbacks);
      f.follow(h.address, "b", 50, b.callbacks);
      await waitFor("a round", () => a.heard.length >= 1 && b.heard.length >= 1, { timeoutMs: 5000, intervalMs: 10 });
      expect(a.heard[0]).toMatchObject({ cluster: "a", at: 7 });
      expect(b.heard[0]).toMatchObject({ cluster: "b", at: 8 });
      expect(h.asked).toEqual(expect.arrayContaining(["metas?a,b", "meta?a", "meta?b"]));
      await h.close();
      await waitFor("the holder to be missed", () => a.heard.at(-1) instanceof PeerError && b.heard.at(-1) instanceof PeerError, { timeoutMs: 5000, intervalMs: 10 });
      expect(a.heard.at(-1)).toMatchObject({ kind: "network" });
    } finally {
      f.close();
      await h.close();
    }
  });

  it("a wrong token is an error of every follower, not a reason to ask cluster by cluster", async () => {
    fs.writeFileSync(path.join(dir, "other"), "o".repeat(40));
    const f = new HolderFollower(loadPeerToken(path.join(dir, "other")));
    const server = http.createServer((_req, res) => {
      // as the server entry does before servePeer: the token is checked first
      res.writeHead(401, { "Content-Type": "application/json", "X-Allocation-Lens-Peer": "refusal" });
      res.end(JSON.stringify({ error: { code: "unauthorized" } }));
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const address = `127.0.0.1:${(server.address() as { port: number }).port}`;
    try {
      const a = listener();
      f.follow(address, "a", 50, a.callbacks);
      await waitFor("a round", () => a.heard.length >= 1, { timeoutMs: 5000, intervalMs: 10 });
      expect((a.heard[0] as PeerError).message).toBe(`the holder at ${address} answered HTTP 401 (unauthorized)`);
      expect((a.heard[0] as PeerError).message).not.toContain("o".repeat(40));
    } finally {
      f.close();
      await new Promise<void>((r) => server.close(() => r()));
    }
  });

  it("the one-cluster route refuses a cluster as the batch does: unknown, held elsewhere, not polled yet", async () => {
    const h = await holder({ a: { mode: local, latest: meta("a", 3) }, c: { mode: elsewhere }, d: { mode: local } });
    try {
      await expect(peerMeta(h.address, "a", token)).resolves.toMatchObject({ cluster: "a", at: 3 });
      const refusals = await Promise.all(["zz", "c", "d"].map((c) => peerMeta(h.address, c, token).then(() => "answered", (e: PeerError) => e.message)));
      expect(refusals).toEqual(["404 (unknown_cluster)", "409 (not_holder)", "503 (not_ready)"].map((r) => `the holder at ${h.address} answered HTTP ${r}`));
    } finally {
      await h.close();
    }
  });

  it("names at most 50 clusters in one request", async () => {
    const clusters = Object.fromEntries(Array.from({ length: 120 }, (_, i) => [`c${i}`, { mode: local, latest: meta(`c${i}`, i) }]));
    const h = await holder(clusters);
    const f = new HolderFollower(token);
    try {
      const heard = new Map<string, number>();
      for (const c of Object.keys(clusters)) f.follow(h.address, c, 60_000, { meta: (m) => heard.set(c, m.at), problem: () => heard.set(c, -1) });
      await waitFor("every cluster heard", () => heard.size === 120, { timeoutMs: 5000, intervalMs: 10 });
      expect([...heard].every(([c, at]) => at === clusters[c].latest.at)).toBe(true);
      expect(h.asked.map((q) => q.split(",").length)).toEqual([50, 50, 20]);
    } finally {
      f.close();
      await h.close();
    }
  });

  it("an unreachable holder: a network error for each follower", async () => {
    const port = await freePort();
    const f = new HolderFollower(token);
    try {
      const a = listener();
      f.follow(`127.0.0.1:${port}`, "a", 50, a.callbacks);
      await waitFor("a round", () => a.heard.length >= 1, { timeoutMs: 5000, intervalMs: 10 });
      expect(a.heard[0]).toMatchObject({ kind: "network", message: `the holder at 127.0.0.1:${port} cannot be reached: ECONNREFUSED` });
    } finally {
      f.close();
    }
  });
});

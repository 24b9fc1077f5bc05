import { afterEach, beforeEach, describe, expect, it } from "vitest";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { freePort } from "@allocation-lens/test-support/ports";
import { loadPeerToken, peerAnswer, peerAuthorized, PeerError, peerMeta } from "@/server/lease/peer";

const TOKEN = "p".repeat(20) + "Q".repeat(20);
let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "peer-token-"));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

const file = (text: string) => {
  const f = path.join(dir, `t-${Math.random()}`);
  fs.writeFileSync(f, text);
  return f;
};

describe("the peer token", () => {
  it("sends the first token of the file and accepts every one (a rotation)", () => {
    const next = "n".repeat(40);
    const t = loadPeerToken(file(`# peer token\n${next}\n${TOKEN}\n`));
    expect(t.authorization).toBe(`Bearer ${next}`);
    expect(peerAuthorized(`Bearer ${TOKEN}`, t)).toBe(true);
    expect(peerAuthorized(`Bearer ${next}`, t)).toBe(true);
    expect(peerAuthorized(`Bearer ${TOKEN}x`, t)).toBe(false);
    expect(peerAuthorized(TOKEN, t)).toBe(false);
    expect(peerAuthorized(undefined, t)).toBe(false);
  });

  it("refuses a short token, an empty file or a missing one, naming the file and line but never the token", () => {
    const short = "s".repeat(12);
    const e = (() => {
      try {
        loadPeerToken(file(`${short}\n`));
      } catch (err) {
        return (err as Error).message;
      }
    })();
    expect(e).toMatch(/^lease\.peerTokenFile: .* line 1: a token must be at least 32 characters/);
    expect(e).not.toContain(short);
    expect(() => loadPeerToken(file("# nothing\n"))).toThrow(/holds no token/);
    expect(() => loadPeerToken(path.join(dir, "absent"))).toThrow(/cannot read .*ENOENT/);
  });
});

describe("asking the holder", () => {
  let server: http.Server;
  let address: string;
  const seen: Array<string | undefined> = [];
  beforeEach(async () => {
    server = http.createServer((req, res) => {
      seen.push(req.headers.authorization);
      if (req.url?.startsWith("/internal/peer/v1/meta")) {
        res.writeHead(409, { "Content-Type": "application/json", "X-Allocation-Lens-Peer": "refusal" });
        return res.end(JSON.stringify({ error: { code: "not_holder" } }));
      }
      res.writeHead(404, { "Content-Type": "application/json", "X-Allocation-Lens-Peer": "answer" });
      res.end(JSON.stringify({ error: { code: "unknown_node", message: new URL(req.url!, "http://x").searchParams.get("name") } }));
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    address = `127.0.0.1:${(server.address() as { port: number }).port}`;
  });
  afterEach(() => new Promise<void>((r) => server.close(() => r())));

  it("sends the token; a route's own error is an answer, a refusal of the peer path is a PeerError without the token", async () => {
    const t = loadPeerToken(file(TOKEN));
    const a = await peerAnswer(address, "prod", { route: "node", search: "?cluster=prod", name: "n-1" }, t);
    expect(a.status).toBe(404);
    expect(JSON.parse(new TextDecoder().decode(a.body)).error.message).toBe("n-1");
    const refused = await peerMeta(address, "prod", t).catch((e) => e);
    expect(refused).toBeInstanceOf(PeerError);
    expect(refused.message).toBe(`the holder at ${address} answered HTTP 409 (not_holder)`);
    expect(seen).toEqual([`Bearer ${TOKEN}`, `Bearer ${TOKEN}`]);
  });

  it("an unreachable holder is a network PeerError", async () => {
    const t = loadPeerToken(file(TOKEN));
    const port = await freePort(); // nothing listens there
    const gone = await peerMeta(`127.0.0.1:${port}`, "prod", t).catch((e) => e);
    expect(gone).toMatchObject({ kind: "network" });
    expect(gone.message).toBe(`the holder at 127.0.0.1:${port} cannot be reached: ECONNREFUSED`);
    expect(gone.message).not.toContain(TOKEN);
  });
});

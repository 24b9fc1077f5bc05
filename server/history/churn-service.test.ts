import { describe, expect, it, vi } from "vitest";
import { AnswerCache } from "@/lib/answer-cache";
import type { ChurnView } from "@/lib/views/churn";
import { GET as churnRoute } from "@/app/api/v1/churn/route";
import { MemoryHistory } from "@/server/history/memory";
import { CHURN_CACHE_SIZE, FLAP_WINDOW_MS, churnAnswer, flappingFor, type ChurnContext } from "@/server/history/churn-service";
import type { ChurnLike } from "@/lib/analysis/diagnostics";

const POLL = Date.parse("2026-03-01T12:00:00Z");

function context(at = POLL): ChurnContext & { store: MemoryHistory } {
  const store = new MemoryHistory(7);
  store.write("c1", {
    readiness: [{ at: at - 60_000, role: "per-node", pod: "agent-a", node: "n1", ready: false, kind: "became_not_ready", reason: "not Ready" }],
    poll: { at: at - 30_000, pollMs: 5, roles: {} },
  });
  return {
    store,
    snapshot: { cluster: "c1", at, pollIntervalMs: 15_000, sources: [] },
    history: { store, status: store.status, totals: () => ({}) },
    config: { history: { retentionDays: 7, maxBytes: 1 << 20 } },
  };
}
const params = (s: string) => new URLSearchParams(s);

describe("GET /api/v1/churn: bad ranges", () => {
  it("answers from=99999999999999999&to=1 with a 400 naming from, not a 500", async () => {
    // the route refuses it before it asks for a snapshot (no runtime is needed for the answer)
    const res = await churnRoute(new Request("http://lens.test/api/v1/churn?from=99999999999999999&to=1"));
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe("bad_query");
    expect(body.error.message).toMatch(/^from: /);
  });

  it("clamps from=2000-01-01 to the local retention and says so", async () => {
    const ctx = context();
    const v = await churnAnswer(params(`from=${Date.UTC(2000, 0, 1)}&to=${POLL}`), POLL + 1000, ctx, () => {}, new AnswerCache(8, 15_000));
    expect(v.to - v.from).toBe(7 * 86_400_000);
    expect(v.truncated).toEqual({ range: true, reassignments: false });
  });
});

describe("churn answers are cached per cluster, normalised query and poll", () => {
  it("N browsers polling the same relative range at one poll cost one computation", async () => {
    const ctx = context();
    const churn = vi.spyOn(ctx.store, "churn");
    const cache = new AnswerCache<ChurnView>(CHURN_CACHE_SIZE, 15_000);
    // 20 browsers, asking within the poll interval, some spelling the defaults out
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) => churnAnswer(params(i % 2 ? "last=3600000" : "last=3600000&buckets=60&source=auto"), POLL + 200 * i, ctx, () => {}, cache)),
    );
    expect(churn).toHaveBeenCalledTimes(1);
    expect(new Set(answers).size).toBe(1);
    expect(answers[0]).toMatchObject({ from: POLL - 3_600_000, to: POLL, eventsInRange: 1 });
    // another view is another computation; the next poll asks again
    await churnAnswer(params("last=900000"), POLL + 100, ctx, () => {}, cache);
    expect(churn).toHaveBeenCalledTimes(2);
    const next = { ...ctx, snapshot: { ...ctx.snapshot, at: POLL + 15_000 } };
    const later = await churnAnswer(params("last=3600000"), POLL + 15_100, next, () => {}, cache);
    expect(churn).toHaveBeenCalledTimes(3);
    expect(later.to).toBe(POLL + 15_000);
  });

  it("keeps a bounded number of answers, and not a failure", async () => {
    const ctx = context();
    const cache = new AnswerCache<ChurnView>(CHURN_CACHE_SIZE, 15_000);
    for (let i = 1; i <= CHURN_CACHE_SIZE * 2; i++) await churnAnswer(params(`last=${i * 60_000}`), POLL + 1, ctx, () => {}, cache);
    expect(cache.size).toBe(CHURN_CACHE_SIZE);
    const churn = vi.spyOn(ctx.store, "churn").mockImplementationOnce(() => {
      throw new Error("disk I/O error");
    });
    await expect(churnAnswer(params("last=1000"), POLL + 1, ctx, () => {}, cache)).rejects.toMatchObject({ status: 503, code: "history_unavailable" });
    await expect(churnAnswer(params("last=1000"), POLL + 2, ctx, () => {}, cache)).resolves.toMatchObject({ eventsInRange: 0 });
    expect(churn).toHaveBeenCalledTimes(2);
  });
});

describe("the diagnostics' flapping read", () => {
  const flip = (at: number, ready: boolean) => ({ at, role: "per-node" as const, pod: "agent-f", node: "n2", ready, kind: ready ? ("became_ready" as const) : ("became_not_ready" as const), reason: null });

  it("ranks the readiness flips of the last FLAP_WINDOW_MS, read once per cluster and poll", async () => {
    const ctx = context();
    ctx.store.write("c1", { readiness: [flip(POLL - FLAP_WINDOW_MS - 1000, false), flip(POLL - 5000, true), flip(POLL - 4000, false)], poll: { at: POLL - 3000, pollMs: 5, roles: {} } });
    const readiness = vi.spyOn(ctx.store, "readiness");
    const cache = new AnswerCache<ChurnLike | null>(8, 15_000);
    const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => flappingFor(ctx.snapshot, POLL + 100 * i, ctx.history, cache)));
    expect(readiness).toHaveBeenCalledTimes(1);
    expect(readiness).toHaveBeenCalledWith("c1", { from: POLL - FLAP_WINDOW_MS, to: POLL }, expect.any(Number));
    expect(new Set(answers).size).toBe(1);
    // agent-f flipped twice in the window (its older flip is outside it), agent-a once
    expect(answers[0]?.flapping.map((f) => [f.pod, f.transitions])).toEqual([["agent-f", 2], ["agent-a", 1]]);
    await flappingFor({ ...ctx.snapshot, at: POLL + 15_000 }, POLL + 15_100, ctx.history, cache);
    expect(readiness).toHaveBeenCalledTimes(2);
  });

  it("is null without history or when the store fails, and a failure is not kept", async () => {
    const ctx = context();
    const cache = new AnswerCache<ChurnLike | null>(8, 15_000);
    expect(await flappingFor(ctx.snapshot, POLL, undefined, cache)).toBeNull();
    vi.spyOn(ctx.store, "readiness").mockImplementationOnce(() => {
      throw new Error("disk I/O error");
    });
    expect(await flappingFor(ctx.snapshot, POLL, ctx.history, cache)).toBeNull();
    expect(await flappingFor(ctx.snapshot, POLL + 1, ctx.history, cache)).toEqual({ flapping: [expect.objectContaining({ pod: "agent-a", transitions: 1 })] });
  });
});

import { describe, expect, it } from "vitest";
import { microTime, observe, type LeaseRecord } from "@/lib/lease/election";
import { fairShare, liveMembers, mayHandOver, memberLabelValue, memberLeaseName, membershipSettled, memberSelector, preference, toHandOver } from "@/lib/lease/shards";

const T0 = Date.UTC(2026, 11, 5, 12, 0, 0);
const member = (holder: string | null, over: Partial<LeaseRecord> = {}): LeaseRecord => ({
  holderIdentity: holder,
  address: "10.0.0.1:3000",
  acquireTime: microTime(T0),
  renewTime: microTime(T0),
  leaseDurationSeconds: 15,
  leaseTransitions: 0,
  resourceVersion: "7",
  ...over,
});

describe("membership Lease names", () => {
  it("are <prefix>-member-<identity> for a pod name, a hash for anything else, never longer than a name may be", () => {
    expect(memberLeaseName("allocation-lens", "allocation-lens-7d9f-x2k")).toBe("allocation-lens-member-allocation-lens-7d9f-x2k");
    const odd = memberLeaseName("allocation-lens", "Lens_A");
    expect(odd).toMatch(/^allocation-lens-member-lens-a-[0-9a-f]{8}$/);
    // two identities that clean up alike still get names of their own
    expect(memberLeaseName("allocation-lens", "lens.A")).not.toBe(memberLeaseName("allocation-lens", "lens-a"));
    expect(memberLeaseName("allocation-lens", "lens-a")).toBe("allocation-lens-member-lens-a");
    const long = memberLeaseName("p".repeat(190), "x".repeat(200));
    expect(long.length).toBeLessThanOrEqual(253);
    expect(long).toMatch(/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/);
  });

  it("are selected by a label whose value is the prefix, or its hash when the prefix is no label value", () => {
    expect(memberSelector("allocation-lens")).toBe("allocation-lens.io/members-of=allocation-lens");
    expect(memberLabelValue("a".repeat(64))).toMatch(/^h-[0-9a-f]{8}$/);
    expect(memberLabelValue("a".repeat(63))).toBe("a".repeat(63));
  });
});

describe("liveMembers", () => {
  it("counts the membership Leases held and not run out by our clock, and always this replica", () => {
    const seen = [observe(undefined, member("lens-b"), T0), observe(undefined, member("lens-c", { leaseDurationSeconds: 5 }), T0), observe(undefined, member(null), T0)];
    expect(liveMembers(seen, T0 + 1000, 15, "lens-a")).toEqual(["lens-a", "lens-b", "lens-c"]);
    // lens-c's ran out 5 s after it was seen; a released one (no holder) is no member
    expect(liveMembers(seen, T0 + 5000, 15, "lens-a")).toEqual(["lens-a", "lens-b"]);
    expect(liveMembers(seen, T0 + 15_000, 15, "lens-a")).toEqual(["lens-a"]);
  });
});

describe("fairShare", () => {
  it("is ⌈N/M⌉, every cluster for a replica alone", () => {
    expect([fairShare(6, 3), fairShare(6, 2), fairShare(7, 3), fairShare(6, 0), fairShare(1, 3), fairShare(20, 6)]).toEqual([2, 3, 3, 6, 1, 4]);
  });
});

describe("toHandOver", () => {
  it("names nothing at or below the share, else the held cluster this replica prefers least", () => {
    expect(toHandOver(["c1", "c2"], 2, "lens-a")).toBeUndefined();
    const held = ["c1", "c2", "c3"];
    const least = held.reduce((a, b) => (preference("lens-a", a) <= preference("lens-a", b) ? a : b));
    expect(toHandOver(held, 2, "lens-a")).toBe(least);
    // the same whatever the order
    expect(toHandOver([...held].reverse(), 2, "lens-a")).toBe(least);
  });
});

describe("mayHandOver", () => {
  it("one at a time: the next only once the last one has a new holder, or a Lease duration later", () => {
    const last = { cluster: "c1", at: T0 };
    expect(mayHandOver(undefined, () => null, "lens-a", T0, 15_000)).toBe(true);
    expect(mayHandOver(last, () => null, "lens-a", T0 + 1000, 15_000)).toBe(false);
    expect(mayHandOver(last, () => "lens-a", "lens-a", T0 + 1000, 15_000)).toBe(false);
    expect(mayHandOver(last, () => "lens-c", "lens-a", T0 + 1000, 15_000)).toBe(true);
    expect(mayHandOver(last, () => null, "lens-a", T0 + 15_000, 15_000)).toBe(true);
  });
});

describe("membershipSettled", () => {
  it("after a list read one renewal period after this replica's membership Lease was written", () => {
    expect(membershipSettled(null, T0, 5000)).toBe(false);
    expect(membershipSettled(T0, null, 5000)).toBe(false);
    expect(membershipSettled(T0, T0 + 4999, 5000)).toBe(false);
    expect(membershipSettled(T0, T0 + 5000, 5000)).toBe(true);
  });
});

/**
 * The rules played in rounds over replicas that all see the same membership: in each round every replica above its share
 * hands one cluster over (when its last one has a new holder), then every replica below it takes free clusters, one
 * claim after another. Returns the holder of every cluster after it settles, and how often each cluster changed hands.
 */
function play(clusters: string[], members: string[], start: Map<string, string | null>, moves: Map<string, number>): Map<string, string | null> {
  const holders = new Map(start);
  const share = fairShare(clusters.length, members.length);
  const lastHandOver = new Map<string, string>();
  for (let round = 0; round < 50; round++) {
    let changed = false;
    for (const m of members) {
      const held = clusters.filter((c) => holders.get(c) === m);
      const last = lastHandOver.get(m);
      const c = toHandOver(held, share, m);
      if (c && mayHandOver(last === undefined ? undefined : { cluster: last, at: 0 }, (x) => holders.get(x), m, 0, Infinity)) {
        holders.set(c, null);
        lastHandOver.set(m, c);
        changed = true;
      }
    }
    for (const m of members) {
      for (const c of clusters) {
        const held = clusters.filter((x) => holders.get(x) === m).length;
        if (holders.get(c) === null && held < share) {
          holders.set(c, m);
          moves.set(c, (moves.get(c) ?? 0) + 1);
          changed = true;
        }
      }
    }
    if (!changed) return holders;
  }
  throw new Error("did not settle in 50 rounds");
}

describe("the rules, played", () => {
  const clusters = ["c1", "c2", "c3", "c4", "c5", "c6"];
  const count = (h: Map<string, string | null>, m: string) => [...h.values()].filter((x) => x === m).length;

  it("three replicas on six clusters: balanced; one dies: its two move, nothing else; it comes back: two move back, each once", () => {
    const moves = new Map<string, number>();
    const first = play(clusters, ["a", "b", "c"], new Map(clusters.map((c) => [c, null])), moves);
    expect(["a", "b", "c"].map((m) => count(first, m))).toEqual([2, 2, 2]);

    moves.clear();
    const gone = new Map([...first].map(([c, h]) => [c, h === "c" ? null : h]));
    const two = play(clusters, ["a", "b"], gone, moves);
    expect(["a", "b"].map((m) => count(two, m))).toEqual([3, 3]);
    expect([...moves.keys()].sort()).toEqual(clusters.filter((c) => first.get(c) === "c").sort());

    moves.clear();
    const back = play(clusters, ["a", "b", "c"], two, moves);
    expect(["a", "b", "c"].map((m) => count(back, m))).toEqual([2, 2, 2]);
    // only as many as it must: the two c takes; none moves twice
    expect(moves.size).toBe(2);
    expect([...moves.values()]).toEqual([1, 1]);
    for (const c of moves.keys()) expect(back.get(c)).toBe("c");
  });

  it("holds at most ⌈N/M⌉ each for every N and M up to 12, and leaves no cluster without a holder", () => {
    for (let n = 1; n <= 12; n++) {
      const cs = Array.from({ length: n }, (_, i) => `k${i}`);
      for (let m = 1; m <= 12; m++) {
        const ms = Array.from({ length: m }, (_, i) => `r${i}`);
        const h = play(cs, ms, new Map(cs.map((c) => [c, null])), new Map());
        expect([...h.values()].every((x) => x !== null), `${n} clusters, ${m} replicas`).toBe(true);
        expect(Math.max(...ms.map((r) => count(h, r))), `${n} clusters, ${m} replicas`).toBeLessThanOrEqual(fairShare(n, m));
      }
    }
  });
});

import { describe, expect, it } from "vitest";
import { parseConfig, type FleetConfig } from "@/lib/config/schema";
import { fleetViewSchema } from "@/lib/api/schemas";
import { SourceError } from "@/lib/source-error";
import type { Matrix, Vector } from "@/lib/prometheus/schemas";
import { ApiError } from "@/server/api";
import { FleetService, fleetFor, type FleetClient } from "@/server/fleet/service";

const config = (): FleetConfig => {
  const r = parseConfig({
    clusters: [{ name: "x", targetAllocators: { "per-node": { url: "http://ta:80", flavor: "upstream", collectors: { namespace: "n", selector: {} } } } }],
    fleet: { prometheus: { url: "http://prometheus:9090", matchers: ['job="allocation-lens"'] }, dashboardUrl: "https://lens.{cluster}.example.com/", refreshSeconds: 10 },
  });
  if (!r.ok) throw new Error(r.errors.join("\n"));
  return r.config.fleet!;
};

class FakeClient implements FleetClient {
  readonly endpoint = "http://prometheus:9090";
  calls = 0;
  fail: SourceError | null = null;
  queries: string[] = [];
  async query(q: string, time: number): Promise<Vector> {
    this.calls++;
    this.queries.push(q);
    await Promise.resolve();
    if (this.fail) throw this.fail;
    if (q.startsWith("max by (cluster) (timestamp(")) return [{ metric: { cluster: "a" }, value: [time, String(time - 1)] }];
    if (q.includes("allocation_lens_last_poll_timestamp_seconds{") && q.startsWith("max by (cluster) (allocation_lens_last_poll")) return [{ metric: { cluster: "a" }, value: [time, String(time - 2)] }];
    if (q.includes('class="ghost"')) return [{ metric: { cluster: "a", role: "per-node" }, value: [time, "3"] }];
    return [];
  }
  emptyTrends = false;
  async queryRange(): Promise<Matrix> {
    this.calls++;
    if (this.fail) throw this.fail;
    return this.emptyTrends ? [] : [{ metric: { cluster: "a" }, values: [[NOW / 1000, "0"]] }];
  }
}

const NOW = 1_800_000_000_000;

describe("the fleet service", () => {
  it("asks the backend once per refresh interval, whatever the number of requests", async () => {
    const client = new FakeClient();
    const s = new FleetService(config(), client, () => {});
    const answers = await Promise.all(Array.from({ length: 20 }, () => s.get(NOW)));
    // one round of 11 queries: no cluster stopped, no second round
    expect(client.calls).toBe(11);
    expect(new Set(answers).size).toBe(1);
    await s.get(NOW + 9_999);
    expect(client.calls).toBe(11);
    // within a minute, a refresh asks the 9 instant queries only; a minute later the trends again
    await s.get(NOW + 10_000);
    expect(client.calls).toBe(20);
    await s.get(NOW + 60_000);
    expect(client.calls).toBe(31);
    expect(s.refreshes).toBe(3);
    // kept trends that lack a cluster seen now are asked again at once
    const grown = new (class extends FakeClient {
      more = false;
      async query(q: string, time: number): Promise<Vector> {
        const r = await super.query(q, time);
        return this.more && q.startsWith("max by (cluster) (timestamp(") ? [...r, { metric: { cluster: "b" }, value: [time, String(time - 1)] }] : r;
      }
    })();
    const g = new FleetService(config(), grown, () => {});
    await g.get(NOW);
    grown.more = true;
    await g.get(NOW + 10_000);
    expect(grown.calls).toBe(11 + 11);
    // an empty trend answer (nothing scraped yet) is asked again at the next refresh
    const fresh = new FakeClient();
    fresh.emptyTrends = true;
    const e = new FleetService(config(), fresh, () => {});
    await e.get(NOW);
    await e.get(NOW + 10_000);
    expect(fresh.calls).toBe(22);
    const a = fleetViewSchema.parse(answers[0]);
    expect(a).toMatchObject({ at: NOW, pollIntervalMs: 10_000, stale: [], backend: "http://prometheus:9090", staleAfterMs: 120_000, truncated: 0 });
    expect(a.clusters).toEqual([expect.objectContaining({ cluster: "a", status: "bad", problems: ["3 ghost targets"], dashboardUrl: "https://lens.a.example.com/" })]);
    expect(client.queries.every((q) => q.includes('job="allocation-lens"'))).toBe(true);
  });

  it("for a page: the last good answer at once, a due refresh left to after the page (it waits on the backend there); a new one when there is none", async () => {
    let release = () => {};
    const client = new (class extends FakeClient {
      hold = false;
      async query(q: string, time: number): Promise<Vector> {
        if (this.hold) await new Promise<void>((r) => (release = r));
        return super.query(q, time);
      }
    })();
    const s = new FleetService(config(), client, () => {});
    const later: (() => void)[] = [];
    const first = await s.forPage(NOW, (work) => later.push(work));
    expect(first.clusters.map((c) => c.cluster)).toEqual(["a"]);
    expect([s.refreshes, later.length]).toEqual([1, 0]);
    client.hold = true;
    // the refresh interval has passed: the page gets the last answer, and the refresh waits for the page to be sent
    const settled = await Promise.race([s.forPage(NOW + 20_000, (work) => later.push(work)).then((v) => v), new Promise((r) => setTimeout(() => r("waited"), 200))]);
    expect(settled).toBe(first);
    expect([s.refreshes, later.length]).toEqual([1, 1]);
    later[0]();
    expect(s.refreshes).toBe(2);
    client.hold = false;
    release();
  });

  it("reads a stopped cluster's last figures in a second round, of its own series only", async () => {
    const client = new (class extends FakeClient {
      async query(q: string, time: number): Promise<Vector> {
        if (q.startsWith("group by (cluster) (last_over_time(")) {
          this.calls++;
          this.queries.push(q);
          return [{ metric: { cluster: "b.1" }, value: [time, "1"] }];
        }
        if (q.includes('cluster=~"b\\\\.1"') && q.includes('class="ghost"')) {
          this.calls++;
          this.queries.push(q);
          // a stopped cluster's last ghosts, and a stray series of a live cluster that must not be taken
          return [
            { metric: { cluster: "b.1", role: "per-node" }, value: [time, "7"] },
            { metric: { cluster: "a", role: "cluster-scraper" }, value: [time, "9"] },
          ];
        }
        return super.query(q, time);
      }
    })();
    const s = new FleetService(config(), client, () => {});
    const a = fleetViewSchema.parse(await s.get(NOW));
    expect(client.calls).toBe(11 + 7);
    const second = client.queries.slice(-7);
    for (const q of second) expect(q).toMatch(/last_over_time\(.*cluster=~"b\\\\\.1".*\[86400s\]\)/);
    expect(a.clusters.map((r) => [r.cluster, r.status])).toEqual([
      ["b.1", "stopped"],
      ["a", "bad"],
    ]);
    expect(a.clusters[0].roles["per-node"]?.ghosts).toBe(7);
    expect(a.clusters[1].roles["cluster-scraper"]).toBeUndefined();
  });

  it("keeps the last good answer when the backend fails, with the backend in stale, and logs the error once", async () => {
    const client = new FakeClient();
    const logged: string[] = [];
    const s = new FleetService(config(), client, (m) => logged.push(m));
    const good = await s.get(NOW);
    client.fail = new SourceError({ source: "prometheus http://prometheus:9090/api/v1/query", kind: "network", message: "connect ECONNREFUSED 127.0.0.1:9090", hint: "is the backend running?" });
    const down = fleetViewSchema.parse(await s.get(NOW + 10_000));
    expect(down.clusters).toEqual(good.clusters);
    expect(down.at).toBe(NOW);
    expect(down.stale).toEqual([
      {
        source: "fleet prometheus http://prometheus:9090",
        state: "stale",
        lastSuccess: NOW,
        latencyMs: expect.any(Number),
        error: { source: "prometheus http://prometheus:9090/api/v1/query", kind: "network", message: "connect ECONNREFUSED 127.0.0.1:9090", hint: "is the backend running?" },
      },
    ]);
    await s.get(NOW + 20_000);
    expect(logged.filter((l) => l.includes("ECONNREFUSED"))).toHaveLength(1);
    client.fail = null;
    expect((await s.get(NOW + 30_000)).stale).toEqual([]);
    expect(logged.at(-1)).toMatch(/answers again/);
  });

  it("answers 502 when the backend fails before any answer, without asking it again within the interval", async () => {
    const client = new FakeClient();
    client.fail = new SourceError({ source: "prometheus x", kind: "timeout", message: "no answer within 10 s" });
    const s = new FleetService(config(), client, () => {});
    const e = await s.get(NOW).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ApiError);
    expect(e).toMatchObject({ status: 502, code: "fleet_unavailable", message: expect.stringContaining("no answer within 10 s") });
    const calls = client.calls;
    await s.get(NOW + 1).catch(() => {});
    expect(client.calls).toBe(calls);
  });

  it("answers 404 without a fleet configuration", async () => {
    await expect(fleetFor({ fleet: undefined })).rejects.toMatchObject({ status: 404, code: "fleet_not_configured" });
  });
});

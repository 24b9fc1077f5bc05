/**
 * Support for the dashboard's suites on upstream's real Target Allocator (`ta: "real"`): the allocator's raw answers read
 * over HTTP (so that every compared figure is computed from what the allocator itself says), and a settle that waits for
 * the allocator, not only the dashboard, after a heal.
 */
import * as api from "@/lib/api/schemas";
import { expectedClasses, parseMetrics, waitFor, zonesOf, type Lens } from "@/test/acceptance/support";

export const GRACE_SECONDS = 6;

/** The real allocator's raw answers, read here over HTTP: assigned targets per collector, and its gauges. */
export async function rawAllocator(lens: Lens): Promise<{ byCollector: Map<string, string[]>; remaining: number; perCollector: number; unassignedGauge: number }> {
  const base = lens.demo.realTas["per-node"]!.httpUrl;
  const jobs = Object.keys((await (await fetch(`${base}/jobs`)).json()) as Record<string, unknown>);
  const byCollector = new Map<string, string[]>();
  for (const job of jobs) {
    const answer = (await (await fetch(`${base}/jobs/${encodeURIComponent(job)}/targets`)).json()) as Record<string, { targets: { targets: string[] }[] }>;
    for (const [c, e] of Object.entries(answer)) {
      const list = byCollector.get(c) ?? [];
      for (const g of e.targets) for (const a of g.targets) list.push(`${job}|${a}`);
      byCollector.set(c, list);
    }
  }
  const m = parseMetrics(await (await fetch(`${base}/metrics`)).text());
  const sum = (name: string) => m.all(name).reduce((n, s) => n + s.value, 0);
  return {
    byCollector,
    remaining: sum("opentelemetry_allocator_targets_remaining"),
    perCollector: sum("opentelemetry_allocator_targets_per_collector"),
    unassignedGauge: sum("opentelemetry_allocator_targets_unassigned"),
  };
}

/**
 * DELETE <control>/faults, then wait (bounded) until the real allocator has every agent pod back and assigns nothing to
 * a pod that is not eligible, and the dashboard's summary shows exactly the classes its answers give.
 */
export async function healAndSettleReal(lens: Lens, timeoutMs = 90_000): Promise<void> {
  await lens.control.heal();
  let last: unknown;
  await waitFor(
    "the real allocator and the dashboard calm again after DELETE /faults",
    async () => {
      const t = await lens.truth();
      const eligible = new Set(t.collectors.filter((c) => c.eligible).map((c) => c.id));
      const registered = t.registered["per-node"] ?? [];
      if (registered.length !== eligible.size || !registered.every((c) => eligible.has(c))) return (last = { registered, eligible: [...eligible] }) && false;
      if (!t.targets.every((x) => x.collector && eligible.has(x.collector))) return (last = "a target on a pod that is not eligible") && false;
      const s = api.summaryViewSchema.parse((await lens.get("/api/v1/summary")).body);
      const want = expectedClasses(t, zonesOf(lens.demo))["per-node"];
      last = { want, got: s.roles["per-node"]?.classes };
      return s.sources.every((x) => x.state === "ok") && JSON.stringify(s.roles["per-node"]?.classes) === JSON.stringify(want) && s.roles["per-node"]?.unassigned === t.unassigned["per-node"];
    },
    { timeoutMs, intervalMs: 250, last: () => last },
  );
}

/**
 * TA load: ten clients polling the API do not raise the number of requests a TA receives. The demo's TA
 * servers count what they serve; over the same number of poll intervals the count is one poll's worth per interval with
 * no client and with ten clients hammering every route handler.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Role } from "@/lib/model";
import { startLens, type Lens } from "@/test/acceptance/support";

const POLLS = 4;
const CLIENTS = 10;
const ROUTES = ["/api/v1/summary", "/api/v1/nodes", "/api/v1/collectors", "/api/v1/monitors", "/api/v1/targets?limit=50", "/api/v1/diagnostics", "/api/v1/churn", "/api/v1/clusters", "/metrics"];

describe("one poller per cluster, whatever the number of API clients", () => {
  let lens: Lens;
  let roles: Role[];
  beforeAll(async () => {
    lens = await startLens({ flavor: "cloudwatch" });
    roles = Object.keys(lens.demo.taServers) as Role[];
  });
  afterAll(async () => lens?.stop());

  /**
   * TA requests served between the end of one poll and the end of the POLLS-th poll after it: read as each poll's news
   * arrives, before the next poll can have sent anything (a read after another await could count its first request).
   */
  async function overPolls(): Promise<Record<string, number>> {
    const served = () => Object.fromEntries(roles.map((r) => [r, lens.demo.taServers[r]!.requests()]));
    const readings: Record<string, number>[] = [];
    const poller = [...lens.runtime.pollers.values()][0];
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        off();
        reject(new Error(`${readings.length} of ${POLLS + 1} polls finished within ${(POLLS + 2) * 10} poll intervals`));
      }, (POLLS + 2) * 10 * lens.intervalMs);
      const off = poller.onSnapshot(() => {
        readings.push(served());
        if (readings.length <= POLLS) return;
        off();
        clearTimeout(timer);
        resolve();
      });
    });
    return Object.fromEntries(roles.map((r) => [r, readings[POLLS][r] - readings[0][r]]));
  }

  it(`${CLIENTS} clients polling every route: the TAs serve the same ${POLLS} polls' worth of requests as with none`, async () => {
    // one poll = /readyz + /jobs + /jobs/{job}/targets per job + /metrics + /scrape_configs
    const summary = lens.latest().analysis.roles;
    const perPoll = Object.fromEntries(roles.map((r) => [r, summary[r]!.jobs + 4]));
    const idle = await overPolls();
    expect(idle).toEqual(Object.fromEntries(roles.map((r) => [r, POLLS * perPoll[r]])));

    let stop = false;
    let answered = 0;
    const client = async (i: number) => {
      for (let n = i; !stop; n++) {
        const r = await lens.get(ROUTES[n % ROUTES.length]);
        expect(r.status, ROUTES[n % ROUTES.length]).toBe(200);
        answered++;
        await new Promise((resolve) => setImmediate(resolve));
      }
    };
    const clients = Array.from({ length: CLIENTS }, (_, i) => client(i));
    let busy: Record<string, number>;
    try {
      busy = await overPolls();
    } finally {
      stop = true;
      await Promise.all(clients);
    }
    expect(answered).toBeGreaterThan(CLIENTS * POLLS);
    expect(busy).toEqual(idle);
    // the poller's own count (exported as allocation_lens_ta_requests_total) agrees with what the TAs served
    const poller = [...lens.runtime.pollers.values()][0];
    const counted = poller.taRequests();
    const m = await lens.metrics();
    for (const r of roles) {
      expect(counted[r]).toBe(lens.demo.taServers[r]!.requests());
      expect(m.value("allocation_lens_ta_requests_total", { cluster: lens.cluster, role: r })).toBe(counted[r]);
    }
  });
});

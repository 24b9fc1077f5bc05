/**
 * A typed client of the demo cluster's control API (docs/ARCHITECTURE.md, "Fault injection"). Every request carries the
 * per-run token of the demo's JSON line (`Authorization: Bearer <controlToken>`) and is bounded in time.
 */
import type { Fault } from "./faults";
import type { ActiveFaults, DemoInfo, FaultApplied, Healed, ScenarioName, Truth } from "./info";

/** Where the control API is and its token: a DemoInfo, or the pair read from a dashboard configuration. */
export type ControlTarget = Pick<DemoInfo, "control" | "controlToken">;

/** A raw answer: status and body, whatever the status. */
export interface ControlAnswer {
  status: number;
  body: string;
  json<T = unknown>(): T;
}

/** A control API answer other than 200; `status` and `body` are the API's. */
export class ControlError extends Error {
  constructor(
    readonly status: number,
    readonly body: string,
    what: string,
  ) {
    super(`${what} -> ${status} ${body}`);
  }
  /** the API's `{"error"}` text, when the body has one */
  get apiError(): string | undefined {
    try {
      return (JSON.parse(this.body) as { error?: string }).error;
    } catch {
      return undefined;
    }
  }
}

export interface DemoControl {
  /** Any request, answered whatever its status (for tests of refusals); a JSON `body` is sent with its content type. */
  request(method: "GET" | "POST" | "DELETE" | "PUT" | "PATCH", path: string, opts?: { body?: unknown; headers?: Record<string, string> }): Promise<ControlAnswer>;
  /** GET /faults: the active faults */
  faults(): Promise<ActiveFaults>;
  /** POST /faults; throws ControlError unless 200 */
  fault(fault: Fault | Record<string, unknown>): Promise<FaultApplied>;
  /** DELETE /faults: heals everything */
  heal(): Promise<Healed>;
  /** POST /scenario */
  scenario(name: ScenarioName | string): Promise<{ scenario: ScenarioName }>;
  /** GET /truth */
  truth(): Promise<Truth>;
}

export function controlClient(target: ControlTarget, { timeoutMs = 10_000 }: { timeoutMs?: number } = {}): DemoControl {
  const base = target.control.replace(/\/+$/, "");
  const request: DemoControl["request"] = async (method, path, opts = {}) => {
    const headers: Record<string, string> = { Authorization: `Bearer ${target.controlToken}`, ...opts.headers };
    const hasBody = opts.body !== undefined;
    if (hasBody) headers["Content-Type"] ??= "application/json";
    const r = await fetch(`${base}${path}`, {
      method,
      headers,
      body: hasBody ? (typeof opts.body === "string" ? opts.body : JSON.stringify(opts.body)) : undefined,
      signal: AbortSignal.timeout(timeoutMs),
    });
    const body = await r.text();
    return { status: r.status, body, json: <T>() => JSON.parse(body) as T };
  };
  const ok = async <T>(what: string, method: "GET" | "POST" | "DELETE", path: string, body?: unknown): Promise<T> => {
    const a = await request(method, path, { body });
    if (a.status !== 200) throw new ControlError(a.status, a.body, what);
    return a.json<T>();
  };
  return {
    request,
    faults: () => ok("GET /faults", "GET", "/faults"),
    fault: (fault) => ok(`POST /faults ${JSON.stringify(fault)}`, "POST", "/faults", fault),
    heal: () => ok("DELETE /faults", "DELETE", "/faults"),
    scenario: (name) => ok(`POST /scenario ${JSON.stringify(name)}`, "POST", "/scenario", { name }),
    truth: () => ok("GET /truth", "GET", "/truth"),
  };
}

import "server-only";
/**
 * The dashboard's side of demo mode: forwards validated fault and scenario requests to the demo cluster's control API named
 * in the configuration. Outside demo mode these routes answer 404, as if they did not exist.
 */
import { parseFault } from "@/lib/demo/faults";
import { ApiError } from "@/server/api";
import { getRuntime } from "@/server/runtime";

async function controlUrl(): Promise<string> {
  const runtime = await getRuntime();
  const url = runtime.config.demo?.control;
  if (!url) throw new ApiError(404, "not_found", "not found");
  return url;
}

async function forward(path: string, init: RequestInit): Promise<unknown> {
  const base = await controlUrl();
  const res = await fetch(`${base}${path}`, { ...init, signal: AbortSignal.timeout(10_000) });
  const body = (await res.json().catch(() => ({}))) as { error?: string };
  if (!res.ok) throw new ApiError(res.status === 400 ? 400 : 502, "demo_control", body.error ?? `demo control answered HTTP ${res.status}`);
  return body;
}

export async function demoStatus(): Promise<unknown> {
  return forward("/faults", { method: "GET" });
}

export async function demoFault(body: unknown): Promise<unknown> {
  await controlUrl();
  const parsed = parseFault(body);
  if (!parsed.ok) throw new ApiError(400, "bad_fault", parsed.error);
  return forward("/faults", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(parsed.fault) });
}

export async function demoHeal(): Promise<unknown> {
  return forward("/faults", { method: "DELETE" });
}

export async function demoScenario(name: unknown): Promise<unknown> {
  if (typeof name !== "string") throw new ApiError(400, "bad_request", "expected {\"name\": <scenario>}");
  return forward("/scenario", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ name }) });
}

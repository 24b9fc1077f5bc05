import "server-only";
/**
 * The dashboard's side of demo mode: forwards validated fault and scenario requests to the demo cluster's control API named
 * in the configuration, with its token (read from demo.controlTokenFile, never returned or logged). Outside demo mode these
 * routes answer 404, as if they did not exist (the server entry's gate and proxy.ts already answer so).
 */
import fs from "node:fs";
import { controlClient } from "@allocation-lens/demo-cluster";
import { parseFault } from "@allocation-lens/demo-cluster/faults";
import { ApiError } from "@/server/api";
import { getRuntime } from "@/server/runtime";

async function control(): Promise<{ url: string; tokenFile: string }> {
  const runtime = await getRuntime();
  const demo = runtime.config.demo;
  if (!demo) throw new ApiError(404, "not_found", "not found");
  return { url: demo.control, tokenFile: demo.controlTokenFile };
}

/** 404 outside demo mode: routes call it before they read a body. */
export async function assertDemo(): Promise<void> {
  await control();
}

function readToken(file: string): string {
  try {
    return fs.readFileSync(file, "utf8").trim();
  } catch (e) {
    throw new ApiError(502, "demo_control", `cannot read the demo control token file ${file}: ${(e as NodeJS.ErrnoException).code ?? "unreadable"}`);
  }
}

async function forward(method: "GET" | "POST" | "DELETE", path: string, body?: unknown): Promise<unknown> {
  const { url, tokenFile } = await control();
  const answer = await controlClient({ control: url, controlToken: readToken(tokenFile) }).request(method, path, { body });
  let parsed: { error?: string } = {};
  try {
    parsed = answer.json();
  } catch {
    /* not JSON: the status says it */
  }
  if (answer.status !== 200) throw new ApiError(answer.status === 400 ? 400 : 502, "demo_control", parsed.error ?? `demo control answered HTTP ${answer.status}`);
  return parsed;
}

export async function demoStatus(): Promise<unknown> {
  return forward("GET", "/faults");
}

export async function demoFault(body: unknown): Promise<unknown> {
  await control();
  const parsed = parseFault(body);
  if (!parsed.ok) throw new ApiError(400, "bad_fault", parsed.error);
  return forward("POST", "/faults", parsed.fault);
}

export async function demoHeal(): Promise<unknown> {
  return forward("DELETE", "/faults");
}

export async function demoScenario(name: unknown): Promise<unknown> {
  await control();
  if (typeof name !== "string") throw new ApiError(400, "bad_request", "expected {\"name\": <scenario>}");
  return forward("POST", "/scenario", { name });
}

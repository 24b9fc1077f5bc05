import { json } from "@/server/api";
import { readiness } from "@/server/readiness";

export const dynamic = "force-dynamic";

/**
 * Readiness: 200 {"status":"ready"} once the runtime has started and every cluster has completed a poll, 503
 * {"status":"not_ready"} otherwise. Exempt from auth (the kubelet calls it), so it says nothing more: the reason (cluster
 * names, startup errors) goes to the server log, once per change. Never waits for a poll.
 */
export async function GET() {
  const ready = await readiness();
  return json({ status: ready ? "ready" : "not_ready" }, { status: ready ? 200 : 503 });
}

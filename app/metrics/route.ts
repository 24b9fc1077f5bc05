import "server-only";
import { METRICS_WAIT_MS, renderMetrics, within } from "@/server/metrics";
import { getRuntime } from "@/server/runtime";

export const dynamic = "force-dynamic";

/** GET /metrics when the server entry leaves it to Next.js (HEAD, say; server/inbound/metrics.ts answers GET itself). */
export async function GET() {
  try {
    const runtime = await within(getRuntime(), METRICS_WAIT_MS);
    const { contentType, parts } = await renderMetrics(runtime?.host ?? null);
    return new Response(Buffer.concat(parts), { headers: { "Content-Type": contentType, "Cache-Control": "no-store" } });
  } catch (e) {
    console.error("allocation-lens: /metrics failed", (e as Error)?.message);
    return new Response("# metrics unavailable\n", { status: 500, headers: { "Content-Type": "text/plain; charset=utf-8" } });
  }
}

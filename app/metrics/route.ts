import { renderMetrics } from "@/server/metrics";

export const dynamic = "force-dynamic";

export async function GET() {
  try {
    const { contentType, body } = await renderMetrics();
    return new Response(body, { headers: { "Content-Type": contentType, "Cache-Control": "no-store" } });
  } catch (e) {
    console.error("allocation-lens: /metrics failed", (e as Error)?.message);
    return new Response("# metrics unavailable\n", { status: 500, headers: { "Content-Type": "text/plain; charset=utf-8" } });
  }
}

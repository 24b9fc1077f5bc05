import { ApiError, handle, snapshotFor } from "@/server/api";
import { toNodeDetail } from "@/lib/views/nodes";
import { freshness } from "@/lib/views/summary";

export async function GET(request: Request, { params }: { params: Promise<{ name: string }> }) {
  return handle(async () => {
    const { name } = await params;
    const s = await snapshotFor(request.url);
    const detail = toNodeDetail(s.analysis, freshness(s), name);
    if (!detail) throw new ApiError(404, "unknown_node", `no node named "${name}" in cluster ${s.cluster}`);
    return detail;
  });
}

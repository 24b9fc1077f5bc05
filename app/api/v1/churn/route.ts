import { handle } from "@/server/api";
import { churnFor } from "@/server/history/churn-service";

/** GET /api/v1/churn?cluster=&from=<ms or ISO>&to=&buckets=60: readiness transitions and reassignments over time. */
export async function GET(request: Request) {
  return handle(() => churnFor(request.url));
}

import { answer, ApiError, errorResponse } from "@/server/api";
import { parseChurnQuery } from "@/lib/views/churn";

/** GET /api/v1/churn?cluster=&from=<ms or ISO>&to=&buckets=60: readiness transitions and reassignments over time. */
export async function GET(request: Request) {
  // a bad parameter is a 400 at once, not after waiting for the first poll
  const early = parseChurnQuery(new URL(request.url).searchParams, Date.now());
  if (!early.ok) return errorResponse(new ApiError(400, "bad_query", early.message));
  return answer(request, "churn");
}

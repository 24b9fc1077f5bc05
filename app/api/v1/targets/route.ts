import { answer, errorResponse, queryParams } from "@/server/api";
import { targetQuerySchema } from "@/lib/views/targets";

export async function GET(request: Request) {
  try {
    // a bad parameter is a 400 at once, not after waiting for the first poll
    queryParams(request.url, targetQuerySchema);
  } catch (e) {
    return errorResponse(e);
  }
  return answer(request, "targets");
}

import { answer } from "@/server/api";

export async function GET(request: Request) {
  return answer(request, "alerts");
}

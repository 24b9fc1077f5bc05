import { answer } from "@/server/api";

export async function GET(request: Request, { params }: { params: Promise<{ name: string }> }) {
  const { name } = await params;
  return answer(request, "node", name);
}

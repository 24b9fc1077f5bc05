import { handle } from "@/server/api";
import { demoScenario } from "@/server/demo-control";

export async function POST(request: Request) {
  return handle(async () => demoScenario(((await request.json().catch(() => null)) as { name?: unknown } | null)?.name));
}

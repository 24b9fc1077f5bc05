import { handle } from "@/server/api";
import { assertDemo, demoScenario } from "@/server/demo-control";

export async function POST(request: Request) {
  return handle(async () => {
    await assertDemo(); // before the body is read
    return demoScenario(((await request.json().catch(() => null)) as { name?: unknown } | null)?.name);
  });
}

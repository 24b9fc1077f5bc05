import { handle } from "@/server/api";
import { assertDemo, demoFault, demoHeal, demoStatus } from "@/server/demo-control";

export async function GET() {
  return handle(() => demoStatus());
}

export async function POST(request: Request) {
  return handle(async () => {
    await assertDemo(); // before the body is read
    return demoFault(await request.json().catch(() => null));
  });
}

export async function DELETE() {
  return handle(() => demoHeal());
}

import { handle } from "@/server/api";
import { demoFault, demoHeal, demoStatus } from "@/server/demo-control";

export async function GET() {
  return handle(() => demoStatus());
}

export async function POST(request: Request) {
  return handle(async () => demoFault(await request.json().catch(() => null)));
}

export async function DELETE() {
  return handle(() => demoHeal());
}

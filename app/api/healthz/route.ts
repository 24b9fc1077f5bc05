export const dynamic = "force-dynamic";

/** Liveness: the process serves requests. No dependency is checked: a TA or Kubernetes outage must not restart the dashboard. */
export function GET() {
  return Response.json({ status: "ok" }, { headers: { "Cache-Control": "no-store" } });
}

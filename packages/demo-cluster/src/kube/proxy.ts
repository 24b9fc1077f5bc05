/**
 * The service proxy of the demo's Kubernetes API: `/api/v1/namespaces/NS/services/{name | name:port | http:name:port |
 * https:name:port}/proxy/{path}` (GET and HEAD), as the API server forwards it to one ready endpoint of the Service. A
 * plain-HTTP backend (the upstream TA) is proxied with status, content type and body streamed back; an HTTPS backend
 * that requires a client certificate (the cloudwatch TAs) fails as the real API server fails, connecting without one:
 * 503 `error trying to reach service: remote error: tls: certificate required`. The demo never presents its own
 * client certificate here.
 */
import http from "node:http";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { KubeObject, Store } from "../store";
import type { Backend } from "../ta-pods";
import { sendJson, status } from "./answers";
import { labelSelectorPredicate } from "./selectors";

export interface ProxyRoute {
  namespace: string;
  /** name, name:port, scheme:name:port */
  spec: string;
  /** the path after /proxy, "/" at least */
  path: string;
}

export function matchServiceProxy(segments: string[]): ProxyRoute | undefined {
  if (segments[0] !== "api" || segments[1] !== "v1" || segments[2] !== "namespaces" || segments[4] !== "services" || segments[6] !== "proxy") return undefined;
  if (segments.length < 7) return undefined;
  return { namespace: segments[3], spec: segments[5], path: "/" + segments.slice(7).map(encodeURIComponent).join("/") };
}

function parseSpec(spec: string): { scheme?: string; name: string; port?: string } {
  const parts = spec.split(":");
  if (parts.length === 3) return { scheme: parts[0] || undefined, name: parts[1], port: parts[2] || undefined };
  if (parts.length === 2) return { name: parts[0], port: parts[1] || undefined };
  return { name: spec };
}

type Dict = Record<string, unknown>;

const ready = (p: KubeObject) =>
  !p.metadata.deletionTimestamp &&
  (p.status as Dict | undefined)?.phase === "Running" &&
  ((p.status as Dict | undefined)?.conditions as { type: string; status: string }[] | undefined)?.some((c) => c.type === "Ready" && c.status === "True");

export function serveServiceProxy(
  route: ProxyRoute,
  req: IncomingMessage,
  res: ServerResponse,
  ctx: { store: Store; backendFor?: (namespace: string, pod: string, port: number) => Backend | undefined; search: string; count(...k: string[]): void },
): void {
  const { namespace } = route;
  const { name, port } = parseSpec(route.spec);
  const fail = (body: Record<string, unknown>) => {
    ctx.count("proxy", `proxy:${body.code}`);
    sendJson(res, body.code as number, body);
  };
  if (req.method !== "GET" && req.method !== "HEAD") {
    res.setHeader("Allow", "GET, HEAD");
    return fail(status(405, "MethodNotAllowed", "the demo cluster proxies GET and HEAD only"));
  }
  const svc = ctx.store.get("services", namespace, name);
  if (!svc) return fail(status(404, "NotFound", `services "${name}" not found`, { name, kind: "services" }));
  const spec = (svc.spec ?? {}) as Dict;
  const ports = (spec.ports as { name?: string; port: number; targetPort?: number | string }[] | undefined) ?? [];
  const svcPort = port === undefined ? (ports.length === 1 ? ports[0] : undefined) : ports.find((p) => p.name === port || String(p.port) === port);
  const noEndpoints = () => fail(status(503, "ServiceUnavailable", `no endpoints available for service "${route.spec}"`));
  if (!svcPort) return noEndpoints();
  const selector = Object.entries((spec.selector as Record<string, string> | undefined) ?? {}).map(([k, v]) => `${k}=${v}`).join(",");
  const match = selector ? labelSelectorPredicate(selector) : undefined;
  const pods = match ? ctx.store.list("pods", namespace).filter((p) => match(p) && ready(p)) : [];
  for (const pod of pods) {
    const target = svcPort.targetPort ?? svcPort.port;
    const containerPort =
      typeof target === "number"
        ? target
        : (((pod.spec as Dict | undefined)?.containers as { ports?: { name?: string; containerPort: number }[] }[] | undefined) ?? [])
            .flatMap((c) => c.ports ?? [])
            .find((p) => p.name === target)?.containerPort;
    if (containerPort === undefined) continue;
    const backend = ctx.backendFor?.(namespace, pod.metadata.name, containerPort);
    if (!backend) continue;
    if (backend.tls) return fail(status(503, "ServiceUnavailable", "error trying to reach service: remote error: tls: certificate required"));
    ctx.count("proxy", "proxy:200");
    const upstream = http.request(
      { host: backend.host, port: backend.port, method: req.method, path: route.path + ctx.search, headers: { Accept: req.headers.accept ?? "*/*" } },
      (up) => {
        const headers: Record<string, string> = {};
        if (up.headers["content-type"]) headers["Content-Type"] = up.headers["content-type"];
        if (up.headers["content-length"]) headers["Content-Length"] = up.headers["content-length"];
        res.writeHead(up.statusCode ?? 502, headers);
        up.pipe(res);
      },
    );
    upstream.on("error", (e) => {
      if (!res.headersSent) fail(status(503, "ServiceUnavailable", `error trying to reach service: ${e.message}`));
      else res.destroy();
    });
    res.on("close", () => {
      if (!res.writableFinished) upstream.destroy();
    });
    upstream.end();
    return;
  }
  return noEndpoints();
}

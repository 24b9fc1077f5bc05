import "server-only";
/**
 * A small Kubernetes API server on 127.0.0.1 for the tests of the reaches: Services, Pods and Secrets to read, the
 * service proxy, and `pods/portforward` over WebSocket in the kubelet's wire format (subprotocol v4.channel.k8s.io; binary
 * messages whose first byte is the channel, 0 data and 1 error; the first message on each channel carries the port, 2
 * bytes little-endian). A tunnel connects to the TCP address the test gives the pod. Users are bearer tokens: `denied`
 * lists what a token may not do.
 */
import http from "node:http";
import net from "node:net";
import tls from "node:tls";
import type { AddressInfo } from "node:net";
import { WebSocketServer, type WebSocket } from "ws";
import * as k8s from "@kubernetes/client-node";

export interface FakePod {
  name: string;
  labels: Record<string, string>;
  ready: boolean;
  /** where a tunnel to this pod connects */
  backend: { host: string; port: number } | null;
  /** written on the error channel (then the tunnel closes) instead of connecting */
  channelError?: string;
  created: string;
  ports?: { name: string; containerPort: number }[];
}

export interface FakeKube {
  url: string;
  namespace: string;
  services: Map<string, { selector: Record<string, string>; ports: { name?: string; port: number; targetPort: number | string }[] }>;
  pods: Map<string, FakePod>;
  secrets: Map<string, Record<string, string>>;
  /** service proxy targets: `name:port` -> base URL */
  proxied: Map<string, string>;
  /** token -> the `verb resource` it may not do (e.g. "create pods/portforward", "get secrets") */
  denied: Map<string, Set<string>>;
  /** request lines seen: `METHOD path` (tunnels: `TUNNEL pod port`) */
  seen: string[];
  /** the Authorization header of each service proxy request */
  proxyAuth: string[];
  /** open tunnels per pod */
  tunnels: Map<string, Set<WebSocket>>;
  /** closes every tunnel to `pod` (the pod was deleted) */
  breakTunnels(pod: string): void;
  kubeConfig(token?: string): k8s.KubeConfig;
  close(): Promise<void>;
}

const status = (res: http.ServerResponse, code: number, message: string) => {
  res.writeHead(code, { "Content-Type": "application/json" });
  res.end(JSON.stringify({ kind: "Status", apiVersion: "v1", status: "Failure", message, reason: code === 403 ? "Forbidden" : "NotFound", code }));
};
const json = (res: http.ServerResponse, body: unknown) => {
  res.writeHead(200, { "Content-Type": "application/json" });
  res.end(JSON.stringify(body));
};

function podObject(ns: string, p: FakePod) {
  return {
    metadata: { name: p.name, namespace: ns, labels: p.labels, creationTimestamp: p.created },
    spec: { containers: [{ name: "ta", ports: p.ports ?? [] }] },
    status: { phase: "Running", conditions: [{ type: "Ready", status: p.ready ? "True" : "False" }] },
  };
}

export async function startFakeKube(namespace: string): Promise<FakeKube> {
  const kube: FakeKube = {
    url: "",
    namespace,
    services: new Map(),
    pods: new Map(),
    secrets: new Map(),
    proxied: new Map(),
    denied: new Map(),
    seen: [],
    proxyAuth: [],
    tunnels: new Map(),
    breakTunnels: (pod) => {
      for (const ws of kube.tunnels.get(pod) ?? []) ws.close(1000);
    },
    kubeConfig: (token = "good") => {
      const kc = new k8s.KubeConfig();
      kc.loadFromOptions({
        clusters: [{ name: "fake", server: kube.url, skipTLSVerify: true }],
        users: [{ name: "u", token }],
        contexts: [{ name: "fake", cluster: "fake", user: "u" }],
        currentContext: "fake",
      });
      return kc;
    },
    close: async () => {},
  };
  const may = (req: http.IncomingMessage, what: string) => {
    const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? "")?.[1];
    return token !== undefined && !kube.denied.get(token)?.has(what);
  };
  const base = `/api/v1/namespaces/${namespace}`;
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://x");
    kube.seen.push(`${req.method} ${url.pathname}`);
    const p = url.pathname;
    let m: RegExpExecArray | null;
    if ((m = new RegExp(`^${base}/services/([^/]+)/proxy(/.*)$`).exec(p))) {
      kube.proxyAuth.push(req.headers.authorization ?? "");
      if (!may(req, "get services/proxy")) return status(res, 403, "services/proxy is forbidden");
      const target = kube.proxied.get(decodeURIComponent(m[1]));
      if (!target) return status(res, 404, `services "${m[1]}" not found`);
      const t = new URL(target);
      const up = http.request({ host: t.hostname, port: t.port, path: m[2] + url.search, method: "GET", headers: { accept: req.headers.accept ?? "*/*" } }, (ur) => {
        res.writeHead(ur.statusCode ?? 502, ur.headers);
        ur.pipe(res);
      });
      up.on("error", () => res.destroy());
      res.on("close", () => up.destroy());
      return up.end();
    }
    if ((m = new RegExp(`^${base}/services/([^/]+)$`).exec(p))) {
      if (!may(req, "get services")) return status(res, 403, "services is forbidden");
      const svc = kube.services.get(m[1]);
      if (!svc) return status(res, 404, `services "${m[1]}" not found`);
      return json(res, { metadata: { name: m[1], namespace }, spec: { selector: svc.selector, ports: svc.ports } });
    }
    if (p === `${base}/pods`) {
      if (!may(req, "list pods")) return status(res, 403, "pods is forbidden");
      const selector = Object.fromEntries((url.searchParams.get("labelSelector") ?? "").split(",").filter(Boolean).map((kv) => kv.split("=")));
      const items = [...kube.pods.values()].filter((pod) => Object.entries(selector).every(([k, v]) => pod.labels[k] === v)).map((pod) => podObject(namespace, pod));
      return json(res, { kind: "PodList", apiVersion: "v1", metadata: {}, items });
    }
    if ((m = new RegExp(`^${base}/secrets/([^/]+)$`).exec(p))) {
      if (!may(req, "get secrets")) return status(res, 403, "secrets is forbidden");
      const data = kube.secrets.get(m[1]);
      if (!data) return status(res, 404, `secrets "${m[1]}" not found`);
      return json(res, { kind: "Secret", apiVersion: "v1", metadata: { name: m[1], namespace }, type: "kubernetes.io/tls", data });
    }
    status(res, 404, "not found");
  });
  const wss = new WebSocketServer({ noServer: true, handleProtocols: (protocols) => (protocols.has("v4.channel.k8s.io") ? "v4.channel.k8s.io" : false) });
  server.on("upgrade", (req: http.IncomingMessage, socket: net.Socket, head: Buffer) => {
    const url = new URL(req.url ?? "/", "http://x");
    const m = new RegExp(`^${base}/pods/([^/]+)/portforward$`).exec(url.pathname);
    const port = Number(url.searchParams.get("ports"));
    kube.seen.push(`TUNNEL ${m?.[1] ?? url.pathname} ${port}`);
    const refuse = (code: number, text: string) => {
      socket.end(`HTTP/1.1 ${code} ${text}\r\nContent-Type: application/json\r\nConnection: close\r\nContent-Length: 2\r\n\r\n{}`);
    };
    if (!m) return refuse(404, "Not Found");
    if (!may(req, "create pods/portforward")) return refuse(403, "Forbidden");
    const pod = kube.pods.get(m[1]);
    if (!pod) return refuse(404, "Not Found");
    wss.handleUpgrade(req, socket, head, (ws) => {
      const set = kube.tunnels.get(pod.name) ?? new Set<WebSocket>();
      kube.tunnels.set(pod.name, set);
      set.add(ws);
      ws.on("close", () => set.delete(ws));
      const portBytes = Buffer.alloc(2);
      portBytes.writeUInt16LE(port);
      ws.send(Buffer.concat([Buffer.from([0]), portBytes]));
      ws.send(Buffer.concat([Buffer.from([1]), portBytes]));
      const fail = (text: string) => {
        ws.send(Buffer.concat([Buffer.from([1]), Buffer.from(text)]));
        ws.close(1000);
      };
      if (pod.channelError || !pod.backend) return fail(pod.channelError ?? `pod ${pod.name} has no backend`);
      const conn = net.connect(pod.backend.port, pod.backend.host);
      conn.on("data", (d: Buffer) => ws.send(Buffer.concat([Buffer.from([0]), d])));
      conn.on("error", (e) => fail(`error forwarding port ${port} to pod ${pod.name}: ${e.message}`));
      conn.on("close", () => ws.close(1000));
      ws.on("message", (data) => {
        if (Buffer.isBuffer(data) && data[0] === 0 && data.length > 1) conn.write(data.subarray(1));
      });
      ws.on("close", () => conn.destroy());
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  kube.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  kube.close = () =>
    new Promise((r) => {
      for (const set of kube.tunnels.values()) for (const ws of set) ws.terminate();
      wss.close();
      server.closeAllConnections();
      server.close(() => r());
    });
  return kube;
}

/**
 * A TLS front for a plain TA that requires a client certificate signed by `ca`, as the cloudwatch flavor's TA does;
 * `peers` collects the CN of each client certificate it accepted.
 */
export async function startMtlsFront(plain: { host: string; port: number }, pki: { ca: string; cert: string; key: string }) {
  const peers: string[] = [];
  const sockets = new Set<net.Socket>();
  const server = tls.createServer({ ca: pki.ca, cert: pki.cert, key: pki.key, requestCert: true, rejectUnauthorized: true, minVersion: "TLSv1.3" }, (s) => {
    const cn = s.getPeerCertificate().subject?.CN;
    peers.push(Array.isArray(cn) ? cn.join(",") : String(cn));
    const up = net.connect(plain.port, plain.host);
    s.pipe(up).pipe(s);
    s.on("error", () => up.destroy());
    up.on("error", () => s.destroy());
    s.on("close", () => up.destroy());
  });
  server.on("connection", (s: net.Socket) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  server.on("tlsClientError", () => {});
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    address: { host: "127.0.0.1", port: (server.address() as AddressInfo).port },
    peers,
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}

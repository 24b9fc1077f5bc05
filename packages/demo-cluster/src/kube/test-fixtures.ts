/* eslint-disable @typescript-eslint/no-explicit-any -- watch events are JSON read off the wire */
import http from "node:http";
import { Store, type KubeObject } from "../store";

/** A small demo Store for the Kubernetes API tests: 2 nodes, 3 pods, 2 service monitors, 1 pod monitor. */
export function node(name: string, ready = true, labels: Record<string, string> = {}): KubeObject {
  return {
    apiVersion: "v1",
    kind: "Node",
    metadata: { name, labels: { "kubernetes.io/hostname": name, ...labels } },
    spec: {},
    status: {
      conditions: [{ type: "Ready", status: ready ? "True" : "False" }],
      addresses: [{ type: "InternalIP", address: "10.0.0.1" }],
      nodeInfo: { kubeletVersion: "v1.32.4", osImage: "Debian GNU/Linux 12 (bookworm)", kernelVersion: "6.1.0", containerRuntimeVersion: "containerd://1.7.0" },
    },
  };
}

export function pod(namespace: string, name: string, nodeName: string, labels: Record<string, string> = {}, ready = true): KubeObject {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name, namespace, labels },
    spec: { nodeName, containers: [{ name: "main", image: "example/main:1" }] },
    status: {
      phase: "Running",
      podIP: "10.1.0.7",
      conditions: [{ type: "Ready", status: ready ? "True" : "False" }],
      containerStatuses: [{ name: "main", ready, restartCount: 0, state: { running: { startedAt: "2025-01-01T00:00:00Z" } } }],
    },
  };
}

export function monitor(kind: "ServiceMonitor" | "PodMonitor", namespace: string, name: string): KubeObject {
  return {
    apiVersion: "monitoring.coreos.com/v1",
    kind,
    metadata: { name, namespace, labels: { release: "demo" } },
    spec: { selector: { matchLabels: { app: name } } },
  };
}

export function demoStore(): Store {
  const store = new Store();
  store.upsert("nodes", node("node-a", true, { "node-role.kubernetes.io/control-plane": "" }));
  store.upsert("nodes", node("node-b", false));
  store.upsert("pods", pod("observability", "collector-a", "node-a", { app: "collector", tier: "agent" }));
  store.upsert("pods", pod("observability", "collector-b", "node-b", { app: "collector", tier: "agent" }, false));
  store.upsert("pods", pod("shop", "checkout-1", "node-a", { app: "checkout", tier: "web" }));
  store.upsert("servicemonitors", monitor("ServiceMonitor", "shop", "checkout-smon"));
  store.upsert("servicemonitors", monitor("ServiceMonitor", "observability", "collector-smon"));
  store.upsert("podmonitors", monitor("PodMonitor", "shop", "checkout-pmon"));
  return store;
}

/** A watch stream being read: its status, the events so far, its end. */
export interface Stream {
  status: Promise<number>;
  events: any[];
  ended: Promise<void>;
  close(): void;
}

/** Open a watch stream on `baseUrl` and collect its newline-delimited events. */
export function openWatch(baseUrl: string, pathAndQuery: string, headers: Record<string, string> = {}): Stream {
  const events: any[] = [];
  let req!: http.ClientRequest;
  let resolveStatus!: (n: number) => void;
  const status = new Promise<number>((r) => (resolveStatus = r));
  const ended = new Promise<void>((resolve) => {
    req = http.get(baseUrl + pathAndQuery, { headers }, (res) => {
      resolveStatus(res.statusCode ?? 0);
      let buf = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => {
        buf += chunk;
        let nl: number;
        while ((nl = buf.indexOf("\n")) >= 0) {
          const line = buf.slice(0, nl);
          buf = buf.slice(nl + 1);
          if (line.trim()) events.push(JSON.parse(line));
        }
      });
      res.on("end", () => resolve());
      res.on("close", () => resolve());
      res.on("error", () => resolve());
    });
    req.on("error", () => resolve());
  });
  return { status, events, ended, close: () => req.destroy() };
}

"use client";
/**
 * Demo mode only: a small panel that triggers the demo cluster's faults and scenarios, for live demos. Absent otherwise
 * (the server's demo routes answer 404 outside demo mode, and the panel is not rendered).
 */
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useId, useState } from "react";
import type { Fault } from "@allocation-lens/demo-cluster/faults";
import { BASE, queryKeys, useClusters, useNodes, useOwnership } from "@/components/data/queries";
import styles from "./DemoPanel.module.css";

async function send(path: string, method: string, body?: unknown): Promise<{ did?: string; healed?: number; scenario?: string }> {
  const res = await fetch(`${BASE}${path}`, {
    method,
    headers: body ? { "Content-Type": "application/json" } : undefined,
    body: body ? JSON.stringify(body) : undefined,
  });
  const json = await res.json().catch(() => ({}));
  if (!res.ok) throw new Error(json?.error?.message ?? `HTTP ${res.status}`);
  return json;
}

function Controls() {
  const nodes = useNodes();
  const ownership = useOwnership();
  const client = useQueryClient();
  const nodeId = useId();
  const monitorId = useId();
  const nodeNames = nodes.data?.zones.flatMap((z) => z.nodes.map((n) => n.name)) ?? [];
  const monitors = ownership.data?.monitors ?? [];
  const [node, setNode] = useState("");
  const [monitor, setMonitor] = useState("");
  const chosenNode = node || nodeNames[0] || "";
  const chosenMonitor = monitors.find((m) => `${m.namespace}/${m.name}` === monitor) ?? monitors.find((m) => !m.annotation);
  const m = useMutation({
    mutationFn: (a: { path: string; method: string; body?: unknown }) => send(a.path, a.method, a.body),
    onSettled: () => client.invalidateQueries({ queryKey: queryKeys.all }),
  });
  const fault = (f: Fault) => m.mutate({ path: "/api/v1/demo/faults", method: "POST", body: f });
  const twoRoles = (ownership.data?.split.length ?? 0) > 1;
  return (
    <div className={styles.body}>
      <label htmlFor={nodeId}>Node</label>
      <select id={nodeId} className="input" value={chosenNode} onChange={(e) => setNode(e.target.value)}>
        {nodeNames.map((n) => (
          <option key={n}>{n}</option>
        ))}
      </select>
      <div className={styles.actions}>
        <button type="button" className="btn" onClick={() => fault({ fault: "collector-not-ready", node: chosenNode })}>Collector not Ready</button>
        <button type="button" className="btn" onClick={() => fault({ fault: "collector-crashloop", node: chosenNode })}>Crash loop</button>
        <button type="button" className="btn" onClick={() => fault({ fault: "collector-deleted-unseen", node: chosenNode })}>Delete unseen</button>
        <button type="button" className="btn" onClick={() => fault({ fault: "node-remove", node: chosenNode })}>Remove node</button>
        <button type="button" className="btn" onClick={() => fault({ fault: "node-add" })}>Add node</button>
        <button type="button" className="btn" onClick={() => fault({ fault: "rollout", role: "per-node" })}>Roll out agents</button>
        <button type="button" className="btn" onClick={() => fault({ fault: "ta-outage", role: "per-node", seconds: 30 })}>TA outage 30 s</button>
        <button type="button" className="btn" onClick={() => fault({ fault: "ta-pod-replaced", role: "per-node", readyAfterMs: 5000 })}>Replace TA pod</button>
        <button type="button" className="btn" onClick={() => fault({ fault: "ta-killed", role: "per-node", downSeconds: 10 })}>Kill TA 10 s</button>
        <button type="button" className="btn" onClick={() => fault({ fault: "hostile-target", role: "per-node" })}>Hostile target</button>
        {twoRoles ? (
          <button type="button" className="btn" onClick={() => fault({ fault: "routing-off", role: "cluster-scraper" })}>Routing off</button>
        ) : null}
      </div>
      {twoRoles && chosenMonitor ? (
        <>
          <label htmlFor={monitorId}>Monitor</label>
          <select id={monitorId} className="input" value={`${chosenMonitor.namespace}/${chosenMonitor.name}`} onChange={(e) => setMonitor(e.target.value)}>
            {monitors.map((mo) => (
              <option key={`${mo.kind}/${mo.namespace}/${mo.name}`} value={`${mo.namespace}/${mo.name}`}>
                {mo.namespace}/{mo.name}
              </option>
            ))}
          </select>
          <div className={styles.actions}>
            <button
              type="button"
              className="btn"
              onClick={() =>
                fault({ fault: "annotate-monitor", namespace: chosenMonitor.namespace, name: chosenMonitor.name, kind: chosenMonitor.kind, value: chosenMonitor.annotation ? null : "cluster-scraper" })
              }
            >
              {chosenMonitor.annotation ? "Remove scraper annotation" : "Route to cluster-scraper"}
            </button>
          </div>
        </>
      ) : null}
      <div className={styles.actions}>
        <button type="button" className="btn btn-primary" onClick={() => m.mutate({ path: "/api/v1/demo/faults", method: "DELETE" })}>Heal everything</button>
        <button type="button" className="btn" onClick={() => m.mutate({ path: "/api/v1/demo/scenario", method: "POST", body: { name: "demo" } })}>Play demo timeline</button>
        <button type="button" className="btn" onClick={() => m.mutate({ path: "/api/v1/demo/scenario", method: "POST", body: { name: "calm" } })}>Calm</button>
      </div>
      <p className={styles.status} role="status" aria-live="polite">
        {m.isPending ? "Sending..." : m.isError ? `Refused: ${m.error.message}` : (m.data?.did ?? (m.data?.healed !== undefined ? `Healed (${m.data.healed} objects restored)` : m.data?.scenario ? `Scenario: ${m.data.scenario}` : "Faults change the demo cluster; views update at the next poll."))}
      </p>
    </div>
  );
}

export function DemoPanel() {
  const clusters = useClusters();
  const [open, setOpen] = useState(false);
  if (!clusters.data?.demo) return null;
  return (
    <div className={styles.wrap}>
      <button type="button" className="btn" aria-expanded={open} aria-controls="demo-panel" onClick={() => setOpen((o) => !o)}>
        Demo faults
      </button>
      {open ? (
        <div id="demo-panel" className={styles.panel} role="region" aria-label="Demo faults">
          <Controls />
        </div>
      ) : null}
    </div>
  );
}

import type { KubeObject, Resource } from "../store";

/**
 * meta.k8s.io Table rendering, as the apiserver does for `Accept: application/json;as=Table;v=v1;g=meta.k8s.io`
 * (what kubectl asks for its human-readable output). Columns follow the real printers: pods (NAME READY STATUS
 * RESTARTS AGE, and IP NODE NOMINATED NODE READINESS GATES at priority 1, shown by `-o wide`), nodes (NAME STATUS
 * ROLES AGE VERSION, more at priority 1), configmaps (NAME DATA AGE), secrets (NAME TYPE DATA AGE), services (NAME TYPE
 * CLUSTER-IP EXTERNAL-IP PORT(S) AGE), deployments (NAME READY UP-TO-DATE AVAILABLE AGE), daemonsets (NAME DESIRED CURRENT READY UP-TO-DATE AVAILABLE NODE
 * SELECTOR AGE) and CRDs without printer columns
 * (NAME AGE).
 */

export type IncludeObject = "None" | "Metadata" | "Object";

export interface ColumnDefinition {
  name: string;
  type: string;
  format: string;
  description: string;
  priority: number;
}

export interface TableRequest {
  /** "meta.k8s.io/v1" or "meta.k8s.io/v1beta1" */
  apiVersion: string;
  includeObject: IncludeObject;
}

/** The Table kind kubectl asked for in its Accept header, or undefined when it wants plain JSON. */
export function tableRequest(accept: string | undefined, includeObject: string | null): TableRequest | undefined {
  if (!accept) return undefined;
  for (const clause of accept.split(",")) {
    const params = new Map<string, string>();
    const [type, ...rest] = clause.split(";").map((s) => s.trim());
    if (type !== "application/json" && type !== "*/*") continue;
    for (const p of rest) {
      const eq = p.indexOf("=");
      if (eq > 0) params.set(p.slice(0, eq).trim(), p.slice(eq + 1).trim());
    }
    if (params.get("as") !== "Table" || params.get("g") !== "meta.k8s.io") {
      // a plain JSON clause preferred before any Table clause means plain JSON
      if (!params.has("as")) return undefined;
      continue;
    }
    const v = params.get("v");
    if (v !== "v1" && v !== "v1beta1") continue;
    const inc = includeObject === "None" || includeObject === "Object" ? includeObject : "Metadata";
    return { apiVersion: `meta.k8s.io/${v}`, includeObject: inc };
  }
  return undefined;
}

const col = (name: string, type: string, description: string, priority = 0, format = ""): ColumnDefinition => ({
  name,
  type,
  format,
  description,
  priority,
});

const NAME_COL = col("Name", "string", "Name must be unique within a namespace.", 0, "name");
const AGE_COL = col("Age", "string", "CreationTimestamp is a timestamp representing the server time when this object was created.");

const POD_COLUMNS = [
  NAME_COL,
  col("Ready", "string", "The aggregate readiness state of this pod for accepting traffic."),
  col("Status", "string", "The aggregate status of the containers in this pod."),
  col("Restarts", "string", "The number of times the containers in this pod have been restarted and when the last container in this pod has restarted."),
  AGE_COL,
  col("IP", "string", "IP address allocated to the pod. Routable at least within the cluster.", 1),
  col("Node", "string", "NodeName is a request to schedule this pod onto a specific node.", 1),
  col("Nominated Node", "string", "nominatedNodeName is set only when this pod preempts other pods on the node.", 1),
  col("Readiness Gates", "string", "If specified, all readiness gates will be evaluated for pod readiness.", 1),
];

const NODE_COLUMNS = [
  NAME_COL,
  col("Status", "string", "The status of the node"),
  col("Roles", "string", "The roles of the node"),
  AGE_COL,
  col("Version", "string", "Kubelet Version reported by the node."),
  col("Internal-IP", "string", "List of addresses reachable to the node. Queried from cloud provider, if available.", 1),
  col("External-IP", "string", "List of addresses reachable to the node. Queried from cloud provider, if available.", 1),
  col("OS-Image", "string", "OS Image reported by the node from /etc/os-release (e.g. Debian GNU/Linux 7 (wheezy)).", 1),
  col("Kernel-Version", "string", "Kernel Version reported by the node from 'uname -r' (e.g. 3.16.0-0.bpo.4-amd64).", 1),
  col("Container-Runtime", "string", "Container runtime version reported by the node through runtime remote API (e.g. containerd://1.4.2).", 1),
];

const GENERIC_COLUMNS = [NAME_COL, AGE_COL];

const CONFIGMAP_COLUMNS = [NAME_COL, col("Data", "string", "Data contains the configuration data."), AGE_COL];

const SECRET_COLUMNS = [
  NAME_COL,
  col("Type", "string", "Used to facilitate programmatic handling of secret data."),
  col("Data", "string", "Data contains the secret data."),
  AGE_COL,
];

const SERVICE_COLUMNS = [
  NAME_COL,
  col("Type", "string", "type determines how the Service is exposed."),
  col("Cluster-IP", "string", "clusterIP is the IP address of the service and is usually assigned randomly."),
  col("External-IP", "string", "externalIPs is a list of IP addresses for which nodes in the cluster will also accept traffic for this service."),
  col("Port(s)", "string", "The list of ports that are exposed by this service."),
  AGE_COL,
  col("Selector", "string", "Route service traffic to pods with label keys and values matching this selector.", 1),
];

const DEPLOYMENT_COLUMNS = [
  NAME_COL,
  col("Ready", "string", "Number of the pod with ready state"),
  col("Up-to-date", "string", "Total number of non-terminated pods targeted by this deployment that have the desired template spec."),
  col("Available", "string", "Total number of available pods (ready for at least minReadySeconds) targeted by this deployment."),
  AGE_COL,
  col("Containers", "string", "Names of each container in the template.", 1),
  col("Images", "string", "Images referenced by each container in the template.", 1),
  col("Selector", "string", "Label selector for pods. Existing ReplicaSets whose pods are selected by this will be the ones affected by this deployment.", 1),
];

const DAEMONSET_COLUMNS = [
  NAME_COL,
  col("Desired", "integer", "The total number of nodes that should be running the daemon pod (including nodes correctly running the daemon pod). More info: https://kubernetes.io/docs/concepts/workloads/controllers/daemonset/"),
  col("Current", "integer", "The number of nodes that are running at least 1 daemon pod and are supposed to run the daemon pod. More info: https://kubernetes.io/docs/concepts/workloads/controllers/daemonset/"),
  col("Ready", "integer", "numberReady is the number of nodes that should be running the daemon pod and have one or more of the daemon pod running with a Ready Condition."),
  col("Up-to-date", "integer", "The total number of nodes that are running updated daemon pod"),
  col("Available", "integer", "The number of nodes that should be running the daemon pod and have one or more of the daemon pod running and available (ready for at least spec.minReadySeconds)"),
  col("Node Selector", "string", "NodeSelector is a selector which must be true for the pod to fit on a node. Selector which must match a node's labels for the pod to be scheduled on that node. More info: https://kubernetes.io/docs/concepts/configuration/assign-pod-node/"),
  AGE_COL,
  col("Containers", "string", "Names of each container in the template.", 1),
  col("Images", "string", "Images referenced by each container in the template.", 1),
  col("Selector", "string", "A label query over pods that are managed by the daemon set. Must match in order to be controlled. It must match the pod template's labels. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors", 1),
];

export function columnsFor(resource: Resource): ColumnDefinition[] {
  switch (resource) {
    case "pods":
      return POD_COLUMNS;
    case "nodes":
      return NODE_COLUMNS;
    case "configmaps":
      return CONFIGMAP_COLUMNS;
    case "secrets":
      return SECRET_COLUMNS;
    case "services":
      return SERVICE_COLUMNS;
    case "deployments":
      return DEPLOYMENT_COLUMNS;
    case "daemonsets":
      return DAEMONSET_COLUMNS;
    default:
      return GENERIC_COLUMNS;
  }
}

/** k8s.io/apimachinery/pkg/util/duration.HumanDuration */
export function humanDuration(ms: number): string {
  const seconds = Math.floor(ms / 1000);
  if (seconds < -1) return "<invalid>";
  if (seconds < 0) return "0s";
  if (seconds < 60 * 2) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 10) {
    const s = seconds % 60;
    return s === 0 ? `${minutes}m` : `${minutes}m${s}s`;
  }
  if (minutes < 60 * 3) return `${minutes}m`;
  const hours = Math.floor(minutes / 60);
  if (hours < 8) {
    const m = minutes % 60;
    return m === 0 ? `${hours}h` : `${hours}h${m}m`;
  }
  if (hours < 48) return `${hours}h`;
  if (hours < 24 * 8) {
    const h = hours % 24;
    return h === 0 ? `${Math.floor(hours / 24)}d` : `${Math.floor(hours / 24)}d${h}h`;
  }
  if (hours < 24 * 365 * 2) return `${Math.floor(hours / 24)}d`;
  if (hours < 24 * 365 * 8) {
    const dy = Math.floor(hours / 24) % 365;
    return dy === 0 ? `${Math.floor(hours / 24 / 365)}y` : `${Math.floor(hours / 24 / 365)}y${dy}d`;
  }
  return `${Math.floor(hours / 24 / 365)}y`;
}

function age(o: KubeObject, now: number): string {
  const t = o.metadata.creationTimestamp ? Date.parse(o.metadata.creationTimestamp) : NaN;
  return Number.isNaN(t) ? "<unknown>" : humanDuration(now - t);
}

type Dict = Record<string, unknown>;
const asDict = (v: unknown): Dict => (v && typeof v === "object" ? (v as Dict) : {});
const asArray = (v: unknown): Dict[] => (Array.isArray(v) ? (v as Dict[]) : []);

function podCells(o: KubeObject, now: number): unknown[] {
  const spec = asDict(o.spec);
  const status = asDict(o.status);
  const containers = asArray(spec.containers);
  const statuses = asArray(status.containerStatuses);
  let reason = (status.reason as string) || (status.phase as string) || "Unknown";
  let ready = 0;
  let restarts = 0;
  let lastRestart = 0;
  for (const cs of statuses) {
    restarts += Number(cs.restartCount ?? 0);
    const finished = asDict(asDict(cs.lastState).terminated).finishedAt;
    if (typeof finished === "string") lastRestart = Math.max(lastRestart, Date.parse(finished) || 0);
    const state = asDict(cs.state);
    const waiting = asDict(state.waiting);
    const terminated = asDict(state.terminated);
    if (waiting.reason) reason = String(waiting.reason);
    else if (state.terminated) reason = terminated.reason ? String(terminated.reason) : `ExitCode:${terminated.exitCode ?? 0}`;
    else if (cs.ready) ready++;
  }
  if (o.metadata.deletionTimestamp) reason = status.reason === "NodeLost" ? "Unknown" : "Terminating";
  const restartCell = lastRestart > 0 && restarts > 0 ? `${restarts} (${humanDuration(now - lastRestart)} ago)` : restarts;
  const gates = asArray(spec.readinessGates);
  const conditions = asArray(status.conditions);
  const gatesCell = gates.length
    ? `${gates.filter((g) => conditions.some((c) => c.type === g.conditionType && c.status === "True")).length}/${gates.length}`
    : "<none>";
  return [
    o.metadata.name,
    `${ready}/${containers.length || statuses.length}`,
    reason,
    restartCell,
    age(o, now),
    (status.podIP as string) || "<none>",
    (spec.nodeName as string) || "<none>",
    (status.nominatedNodeName as string) || "<none>",
    gatesCell,
  ];
}

function nodeCells(o: KubeObject, now: number): unknown[] {
  const spec = asDict(o.spec);
  const status = asDict(o.status);
  const readyCond = asArray(status.conditions).find((c) => c.type === "Ready");
  const states = [readyCond ? (readyCond.status === "True" ? "Ready" : "NotReady") : "Unknown"];
  if (spec.unschedulable) states.push("SchedulingDisabled");
  const roles = Object.keys(o.metadata.labels ?? {})
    .filter((k) => k.startsWith("node-role.kubernetes.io/"))
    .map((k) => k.slice("node-role.kubernetes.io/".length))
    .filter(Boolean);
  const role = o.metadata.labels?.["kubernetes.io/role"];
  if (role) roles.push(role);
  const addresses = asArray(status.addresses);
  const address = (type: string) => (addresses.find((a) => a.type === type)?.address as string) || "<none>";
  const info = asDict(status.nodeInfo);
  return [
    o.metadata.name,
    states.join(","),
    roles.length ? [...new Set(roles)].sort().join(",") : "<none>",
    age(o, now),
    (info.kubeletVersion as string) || "",
    address("InternalIP"),
    address("ExternalIP"),
    (info.osImage as string) || "<unknown>",
    (info.kernelVersion as string) || "<unknown>",
    (info.containerRuntimeVersion as string) || "<unknown>",
  ];
}

const selectorText = (m: unknown): string => {
  const entries = Object.entries(asDict(m));
  return entries.length ? entries.map(([k, v]) => `${k}=${String(v)}`).join(",") : "<none>";
};

function serviceCells(o: KubeObject, now: number): unknown[] {
  const spec = asDict(o.spec);
  const ports = asArray(spec.ports).map((p) => `${p.port}${p.nodePort ? `:${p.nodePort}` : ""}/${(p.protocol as string) || "TCP"}`);
  const external = Array.isArray(spec.externalIPs) && spec.externalIPs.length ? (spec.externalIPs as string[]).join(",") : "<none>";
  return [o.metadata.name, (spec.type as string) || "ClusterIP", (spec.clusterIP as string) || "<none>", external, ports.join(",") || "<none>", age(o, now), selectorText(spec.selector)];
}

function daemonSetCells(o: KubeObject, now: number): unknown[] {
  const spec = asDict(o.spec);
  const status = asDict(o.status);
  const podSpec = asDict(asDict(spec.template).spec);
  const containers = asArray(podSpec.containers);
  return [
    o.metadata.name,
    Number(status.desiredNumberScheduled ?? 0),
    Number(status.currentNumberScheduled ?? 0),
    Number(status.numberReady ?? 0),
    Number(status.updatedNumberScheduled ?? 0),
    Number(status.numberAvailable ?? 0),
    selectorText(podSpec.nodeSelector),
    age(o, now),
    containers.map((c) => c.name).join(","),
    containers.map((c) => c.image).join(","),
    selectorText(asDict(spec.selector).matchLabels),
  ];
}

function deploymentCells(o: KubeObject, now: number): unknown[] {
  const spec = asDict(o.spec);
  const status = asDict(o.status);
  const containers = asArray(asDict(asDict(spec.template).spec).containers);
  return [
    o.metadata.name,
    `${Number(status.readyReplicas ?? 0)}/${Number(spec.replicas ?? 1)}`,
    Number(status.updatedReplicas ?? 0),
    Number(status.availableReplicas ?? 0),
    age(o, now),
    containers.map((c) => c.name).join(","),
    containers.map((c) => c.image).join(","),
    selectorText(asDict(spec.selector).matchLabels),
  ];
}

const dataCount = (o: KubeObject): number => Object.keys(asDict(o.data)).length + Object.keys(asDict(o.binaryData)).length;

export function cellsFor(resource: Resource, o: KubeObject, now: number): unknown[] {
  switch (resource) {
    case "pods":
      return podCells(o, now);
    case "nodes":
      return nodeCells(o, now);
    case "configmaps":
      return [o.metadata.name, dataCount(o), age(o, now)];
    case "secrets":
      return [o.metadata.name, String(o.type ?? "Opaque"), dataCount(o), age(o, now)];
    case "services":
      return serviceCells(o, now);
    case "deployments":
      return deploymentCells(o, now);
    case "daemonsets":
      return daemonSetCells(o, now);
    default:
      return [o.metadata.name, age(o, now)];
  }
}

function rowObject(o: KubeObject, req: TableRequest): unknown {
  if (req.includeObject === "None") return undefined;
  if (req.includeObject === "Object") return o;
  return { kind: "PartialObjectMetadata", apiVersion: req.apiVersion, metadata: o.metadata };
}

export interface TableOptions {
  resourceVersion: string;
  now?: number;
  /** real apiservers leave columnDefinitions out when the client sets noHeaders (watch events after the first) */
  noHeaders?: boolean;
  /** a page of a list (limit): the next page's token and how many objects are left */
  continue?: string;
  remainingItemCount?: number;
}

export function renderTable(resource: Resource, objects: readonly KubeObject[], req: TableRequest, opts: TableOptions): unknown {
  const now = opts.now ?? Date.now();
  return {
    kind: "Table",
    apiVersion: req.apiVersion,
    metadata: { resourceVersion: opts.resourceVersion, ...(opts.continue ? { continue: opts.continue } : {}), ...(opts.remainingItemCount !== undefined ? { remainingItemCount: opts.remainingItemCount } : {}) },
    columnDefinitions: opts.noHeaders ? null : columnsFor(resource),
    rows: objects.map((o) => {
      const object = rowObject(o, req);
      return object === undefined ? { cells: cellsFor(resource, o, now) } : { cells: cellsFor(resource, o, now), object };
    }),
  };
}

/**
 * coordination.k8s.io/v1 Leases in the demo's Kubernetes API, with kube-apiserver's semantics for what leader election
 * uses: create (POST, 409 AlreadyExists), get (404 NotFound), update (PUT with metadata.resourceVersion: 409 Conflict on a
 * stale one, 422 without one; a PUT of an absent Lease creates it, as kube-apiserver allows for Leases), delete, and list (namespaced or
 * across namespaces, with a label selector, as JSON or as a meta.k8s.io Table: NAME HOLDER AGE, as kubectl prints them). Kept in memory, apart
 * from the demo's world: nothing in the simulation reads them. Every write takes the next resourceVersion of
 * the Leases' own counter.
 */
import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { sendJson, status } from "./answers";
import { humanDuration, tableRequest } from "./tables";
import { readJsonBody } from "../json-body";
import { matchesLabels, parseLabelSelector, SelectorError, type Requirement } from "./selectors";

export const COORDINATION_GROUP = "coordination.k8s.io";
export const COORDINATION_VERSION = "v1";
const API_VERSION = `${COORDINATION_GROUP}/${COORDINATION_VERSION}`;
/** kube-apiserver's limit on a request body is far larger; a Lease is a few hundred bytes */
const MAX_BODY_BYTES = 256 * 1024;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

export interface LeaseObject {
  apiVersion: string;
  kind: "Lease";
  metadata: { name: string; namespace: string; uid: string; resourceVersion: string; creationTimestamp: string; [k: string]: unknown };
  spec: Record<string, unknown>;
}

export function leaseResource(): unknown {
  return {
    name: "leases",
    singularName: "lease",
    namespaced: true,
    kind: "Lease",
    verbs: ["create", "delete", "get", "list", "update"],
    storageVersionHash: "gqkMMb/YqFM=",
  };
}

export function coordinationGroup(): { name: string; versions: unknown[]; preferredVersion: unknown } {
  const gv = { groupVersion: API_VERSION, version: COORDINATION_VERSION };
  return { name: COORDINATION_GROUP, versions: [gv], preferredVersion: gv };
}

export function coordinationResourceList(): unknown {
  return { kind: "APIResourceList", apiVersion: "v1", groupVersion: API_VERSION, resources: [leaseResource()] };
}

/** A request path naming Leases: `/apis/coordination.k8s.io/v1[/namespaces/NS]/leases[/NAME]`; undefined otherwise. */
export function matchLeases(segments: string[]): { namespace?: string; name?: string } | undefined | "notFound" {
  if (segments[0] !== "apis" || segments[1] !== COORDINATION_GROUP || segments[2] !== COORDINATION_VERSION || segments.length < 4) return undefined;
  let rest = segments.slice(3);
  let namespace: string | undefined;
  if (rest[0] === "namespaces" && rest.length >= 3) [namespace, rest] = [rest[1], rest.slice(2)];
  if (rest[0] !== "leases" || rest.length > 2) return "notFound";
  return { namespace, name: rest[1] };
}

const notFound = (name: string) => status(404, "NotFound", `leases.${COORDINATION_GROUP} "${name}" not found`, { name, group: COORDINATION_GROUP, kind: "leases" });
const invalid = (name: string, field: string, message: string) =>
  status(422, "Invalid", `Lease.${COORDINATION_GROUP} "${name}" is invalid: ${field}: ${message}`, {
    name,
    group: COORDINATION_GROUP,
    kind: "Lease",
    causes: [{ reason: "FieldValueInvalid", message, field }],
  });

export class LeaseStore {
  private readonly leases = new Map<string, LeaseObject>();
  /** the resourceVersion of the latest write (Leases count their own: the world's Store knows nothing of them) */
  private version = 0;

  constructor(private readonly count: (...keys: string[]) => void) {}

  get(namespace: string, name: string): LeaseObject | undefined {
    return this.leases.get(`${namespace}/${name}`);
  }

  list(namespace?: string): LeaseObject[] {
    // etcd's key order (byte order of namespace/name), as every other list
    const key = (l: LeaseObject) => `${l.metadata.namespace}/${l.metadata.name}`;
    return [...this.leases.values()].filter((l) => namespace === undefined || l.metadata.namespace === namespace).sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
  }

  /** Serves one request for Leases (already matched by matchLeases). */
  async serve(route: { namespace?: string; name?: string }, req: IncomingMessage, res: ServerResponse, q: URLSearchParams): Promise<void> {
    const method = req.method ?? "GET";
    const { namespace, name } = route;
    const fail = (body: Record<string, unknown>, kind: string) => {
      this.count(kind, `${kind}:leases`);
      sendJson(res, body.code as number, body);
    };
    if (method === "GET") {
      if (q.get("watch") === "true" || q.get("watch") === "1") return fail(status(405, "MethodNotAllowed", "watch is not supported on leases by the demo cluster"), "methodNotAllowed");
      const table = tableRequest(req.headers.accept, q.get("includeObject"));
      if (name !== undefined && namespace !== undefined) {
        const lease = this.get(namespace, name);
        if (!lease) return fail(notFound(name), "notFound");
        this.count("get", "get:leases");
        return sendJson(res, 200, table ? this.table([lease], table.apiVersion, table.includeObject) : lease);
      }
      if (name !== undefined) return fail(status(404, "NotFound", "the server could not find the requested resource"), "notFound");
      let selector: Requirement[];
      try {
        selector = parseLabelSelector(q.get("labelSelector") ?? "");
      } catch (e) {
        if (e instanceof SelectorError) return fail(status(400, "BadRequest", e.message), "badRequest");
        throw e;
      }
      this.count("list", "list:leases");
      const items = this.list(namespace).filter((l) => matchesLabels(selector, l.metadata.labels as Record<string, string> | undefined));
      if (table) return sendJson(res, 200, this.table(items, table.apiVersion, table.includeObject));
      return sendJson(res, 200, { kind: "LeaseList", apiVersion: API_VERSION, metadata: { resourceVersion: String(this.version) }, items });
    }
    if (namespace === undefined) return this.notAllowed(res, "GET");
    let body: unknown;
    if (method === "POST" || method === "PUT") {
      try {
        body = await readJsonBody(req, MAX_BODY_BYTES, () => {
          throw new Error("empty");
        });
      } catch (e) {
        return fail(status(400, "BadRequest", `the body of the request could not be read: ${(e as Error).message}`), "badRequest");
      }
    }
    if (method === "POST" && name === undefined) return this.create(namespace, body, res, fail);
    if (method === "PUT" && name !== undefined) return this.update(namespace, name, body, res, fail);
    if (method === "DELETE" && name !== undefined) {
      const lease = this.get(namespace, name);
      if (!lease) return fail(notFound(name), "notFound");
      this.leases.delete(`${namespace}/${name}`);
      this.count("delete", "delete:leases");
      return sendJson(res, 200, { kind: "Status", apiVersion: "v1", metadata: {}, status: "Success", details: { name, group: COORDINATION_GROUP, kind: "leases", uid: lease.metadata.uid } });
    }
    return this.notAllowed(res, name === undefined ? "GET, POST" : "GET, PUT, DELETE");
  }

  private notAllowed(res: ServerResponse, allow: string): void {
    res.setHeader("Allow", allow);
    this.count("methodNotAllowed");
    sendJson(res, 405, status(405, "MethodNotAllowed", "the server does not allow this method on the requested resource"));
  }

  private stamp(): string {
    return String(++this.version);
  }

  private checked(namespace: string, body: unknown, pathName?: string): { lease: { metadata: Record<string, unknown>; spec: Record<string, unknown> } } | { error: Record<string, unknown> } {
    const o = body as { kind?: unknown; apiVersion?: unknown; metadata?: Record<string, unknown>; spec?: Record<string, unknown> } | null;
    if (!o || typeof o !== "object" || Array.isArray(o)) return { error: status(400, "BadRequest", "the body is not a Lease object") };
    if (o.kind !== undefined && o.kind !== "Lease") return { error: status(400, "BadRequest", `the kind of the body is ${JSON.stringify(o.kind)}, expected "Lease"`) };
    if (o.apiVersion !== undefined && o.apiVersion !== API_VERSION) return { error: status(400, "BadRequest", `the apiVersion of the body is ${JSON.stringify(o.apiVersion)}, expected "${API_VERSION}"`) };
    const metadata = o.metadata ?? {};
    const name = typeof metadata.name === "string" ? metadata.name : "";
    if (!name) return { error: invalid("", "metadata.name", "Required value: name or generateName is required") };
    if (!DNS_SUBDOMAIN.test(name) || name.length > 253)
      return {
        error: invalid(
          name,
          "metadata.name",
          `Invalid value: "${name}": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
        ),
      };
    if (pathName !== undefined && name !== pathName) return { error: status(400, "BadRequest", `the name of the object (${name}) does not match the name on the URL (${pathName})`) };
    if (metadata.namespace !== undefined && metadata.namespace !== namespace) return { error: status(400, "BadRequest", "the namespace of the provided object does not match the namespace sent on the request") };
    const spec = o.spec ?? {};
    const duration = spec.leaseDurationSeconds;
    if (duration !== undefined && duration !== null && (!Number.isInteger(duration) || (duration as number) <= 0)) return { error: invalid(name, "spec.leaseDurationSeconds", `Invalid value: ${JSON.stringify(duration)}: must be greater than 0`) };
    const transitions = spec.leaseTransitions;
    if (transitions !== undefined && transitions !== null && (!Number.isInteger(transitions) || (transitions as number) < 0)) return { error: invalid(name, "spec.leaseTransitions", `Invalid value: ${JSON.stringify(transitions)}: must be greater than or equal to 0`) };
    return { lease: { metadata, spec } };
  }

  private create(namespace: string, body: unknown, res: ServerResponse, fail: (b: Record<string, unknown>, kind: string) => void): void {
    const c = this.checked(namespace, body);
    if ("error" in c) return fail(c.error, c.error.code === 422 ? "invalid" : "badRequest");
    const name = c.lease.metadata.name as string;
    if (this.get(namespace, name)) {
      return fail(status(409, "AlreadyExists", `leases.${COORDINATION_GROUP} "${name}" already exists`, { name, group: COORDINATION_GROUP, kind: "leases" }), "conflict");
    }
    const lease: LeaseObject = {
      apiVersion: API_VERSION,
      kind: "Lease",
      metadata: {
        ...pick(c.lease.metadata, ["labels", "annotations"]),
        name,
        namespace,
        uid: randomUUID(),
        resourceVersion: this.stamp(),
        creationTimestamp: new Date(Math.floor(Date.now() / 1000) * 1000).toISOString().replace(".000Z", "Z"),
      },
      spec: c.lease.spec,
    };
    this.leases.set(`${namespace}/${name}`, lease);
    this.count("create", "create:leases");
    sendJson(res, 201, lease);
  }

  private update(namespace: string, name: string, body: unknown, res: ServerResponse, fail: (b: Record<string, unknown>, kind: string) => void): void {
    const c = this.checked(namespace, body, name);
    if ("error" in c) return fail(c.error, c.error.code === 422 ? "invalid" : "badRequest");
    const current = this.get(namespace, name);
    // kube-apiserver creates a Lease on an update when there is none (its strategy allows create on update)
    if (!current) return this.create(namespace, body, res, fail);
    const rv = c.lease.metadata.resourceVersion;
    // Leases do not allow unconditional updates: the resourceVersion read is the precondition
    if (rv === undefined || rv === null || rv === "") return fail(invalid(name, "metadata.resourceVersion", "Invalid value: 0x0: must be specified for an update"), "invalid");
    if (rv !== current.metadata.resourceVersion) {
      return fail(
        status(409, "Conflict", `Operation cannot be fulfilled on leases.${COORDINATION_GROUP} "${name}": the object has been modified; please apply your changes to the latest version and try again`, {
          name,
          group: COORDINATION_GROUP,
          kind: "leases",
        }),
        "conflict",
      );
    }
    const next: LeaseObject = {
      ...current,
      metadata: { ...current.metadata, ...pick(c.lease.metadata, ["labels", "annotations"]), resourceVersion: this.stamp() },
      spec: c.lease.spec,
    };
    if (!("annotations" in c.lease.metadata)) delete next.metadata.annotations;
    if (!("labels" in c.lease.metadata)) delete next.metadata.labels;
    this.leases.set(`${namespace}/${name}`, next);
    this.count("update", "update:leases");
    sendJson(res, 200, next);
  }

  private table(items: LeaseObject[], apiVersion: string, includeObject: string): unknown {
    const now = Date.now();
    return {
      kind: "Table",
      apiVersion,
      metadata: { resourceVersion: String(this.version) },
      columnDefinitions: [
        { name: "Name", type: "string", format: "name", description: "Name must be unique within a namespace.", priority: 0 },
        { name: "Holder", type: "string", format: "", description: "holderIdentity contains the identity of the holder of a current lease.", priority: 0 },
        { name: "Age", type: "string", format: "", description: "CreationTimestamp is a timestamp representing the server time when this object was created.", priority: 0 },
      ],
      rows: items.map((l) => {
        const cells = [l.metadata.name, (l.spec.holderIdentity as string | undefined) ?? "", humanDuration(now - Date.parse(l.metadata.creationTimestamp))];
        if (includeObject === "None") return { cells };
        const object = includeObject === "Object" ? l : { kind: "PartialObjectMetadata", apiVersion, metadata: l.metadata };
        return { cells, object };
      }),
    };
  }
}

function pick(o: Record<string, unknown>, keys: string[]): Record<string, unknown> {
  return Object.fromEntries(keys.filter((k) => o[k] !== undefined && o[k] !== null).map((k) => [k, o[k]]));
}

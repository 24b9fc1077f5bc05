import type { IncomingMessage, ServerResponse } from "node:http";
import { ExpiredError, RESOURCES, type KubeObject, type Resource, type Store, type StoreEvent } from "../store";
import type { Predicate } from "./selectors";

/**
 * Watch streams: chunked, newline-delimited `{"type","object"}` events as a real apiserver sends them.
 * Without a resourceVersion (or "0") every matching object is first sent as ADDED; with one, the store's event log
 * is replayed from there (or a single 410 Expired ERROR event ends the stream), then live events follow.
 * With a selector, an object that stops matching is sent as DELETED and one that starts matching as ADDED, as the
 * apiserver's watch cache does. The objects come from a `WatchSource`: the Store's objects of one resource by default,
 * the derived namespaces for namespaces.ts. BOOKMARK events carry only a resourceVersion (in the stream's own kind: the
 * resource's, or PartialObjectMetadata for a metadata-only watch).
 */

export type EventType = "ADDED" | "MODIFIED" | "DELETED" | "BOOKMARK" | "ERROR";

/** A change as a watch source reports it. */
export type SourceEvent = Pick<StoreEvent, "type" | "object">;

/** Where a watch's objects and their changes come from. */
export interface WatchSource {
  /** the current objects (of the watch's namespace, when it has one) */
  list(): KubeObject[];
  /** the changes after `resourceVersion`; throws ExpiredError when that point is gone */
  since(resourceVersion: number): SourceEvent[];
  /** live changes, in order, synchronously after `list`/`since` */
  subscribe(deliver: (e: SourceEvent) => void): () => void;
}

function asResource(resource: string): Resource {
  if (!(RESOURCES as readonly string[]).includes(resource)) throw new Error(`${resource} is not a stored resource: its watch needs a source`);
  return resource as Resource;
}

/** A Store resource as a watch source. */
export function storeSource(store: Store, resource: Resource, namespace?: string): WatchSource {
  return {
    list: () => store.list(resource, namespace),
    since: (rv) => store.eventsSince(resource, rv).filter((e) => !namespace || e.object.metadata.namespace === namespace),
    subscribe: (deliver) =>
      store.subscribe((e) => {
        if (e.resource === resource && (!namespace || e.object.metadata.namespace === namespace)) deliver(e);
      }),
  };
}

/** What a watch needs to know of its resource (a Store resource's ResourceInfo, or namespaces'). */
export interface WatchedKind {
  resource: string;
  kind: string;
  apiVersion: string;
}

export interface WatchParams {
  store: Store;
  info: WatchedKind;
  /** default: the Store's objects of `info.resource` */
  source?: WatchSource;
  /** the object a BOOKMARK carries; default `{kind, apiVersion, metadata: {resourceVersion}}` of the resource */
  bookmark?: (resourceVersion: string) => unknown;
  /** namespace/label/field filter; undefined = everything */
  filter?: Predicate;
  namespace?: string;
  /** the request's resourceVersion ("" or "0" = start with the current state) */
  resourceVersion?: string;
  bookmarks: boolean;
  /** the watch-list protocol: the current objects as ADDED, then a BOOKMARK annotated `k8s.io/initial-events-end` */
  sendInitialEvents?: boolean;
  bookmarkIntervalMs: number;
  /** seconds until the server ends the stream */
  timeoutSeconds: number;
  /** turns an object into what the event carries (plain object, or a Table for kubectl) */
  encode: (object: KubeObject, first: boolean) => unknown;
  /** ends the stream when this many bytes are queued for a client that does not read */
  maxBufferedBytes?: number;
}

export interface ActiveWatch {
  resource: string;
  /** the requested resourceVersion had expired: one 410 ERROR event was sent and the stream ended */
  expired: boolean;
  /** end the stream cleanly (the client sees a normal end of body and re-watches) */
  end(): void;
  /** whether a change of `o` would reach this stream (its resource's namespace and selectors) */
  sees(o: KubeObject): boolean;
  /**
   * A partition: for `ms` the stream delivers nothing (changes in between are lost to it), then it ends cleanly. A client
   * that re-watches from its last resourceVersion gets the lost changes from the event log; one that re-watches without
   * one gets the current objects as ADDED, and never the deletions in between.
   */
  stall(ms: number): void;
  /** reset the connection (the client sees an error) */
  destroy(): void;
}

const keyOf = (o: KubeObject) => `${o.metadata.namespace ?? ""}/${o.metadata.name}`;

export function expiredStatus(message: string): Record<string, unknown> {
  return { kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", message, reason: "Expired", code: 410 };
}

/** Ensure the object carries kind and apiVersion (events always do on a real apiserver). */
export function withTypeMeta(o: KubeObject, info: WatchedKind): KubeObject {
  return o.kind && o.apiVersion ? o : { ...o, apiVersion: info.apiVersion, kind: info.kind };
}

/** Serve a watch on `res`. Returns the registered stream (already ended when the resourceVersion expired). */
export function serveWatch(req: IncomingMessage, res: ServerResponse, p: WatchParams): ActiveWatch {
  const { store, info, filter } = p;
  const source = p.source ?? storeSource(store, asResource(info.resource), p.namespace);
  const maxBuffered = p.maxBufferedBytes ?? 64 * 1024 * 1024;
  let closed = false;
  let first = true;
  // only live events are held to the buffer cap: the initial burst is written synchronously before the client reads
  let capBuffer = false;
  let stalled = false;
  const unsubscribe: (() => void)[] = [];
  const timers: NodeJS.Timeout[] = [];

  res.writeHead(200, {
    "Content-Type": "application/json",
    "Cache-Control": "no-cache, private",
    "Transfer-Encoding": "chunked",
  });
  res.flushHeaders();

  const cleanup = () => {
    if (closed) return;
    closed = true;
    for (const off of unsubscribe) off();
    for (const t of timers) clearTimeout(t); // clears intervals too
  };
  const write = (type: EventType, object: unknown) => {
    if (closed || stalled) return;
    res.write(JSON.stringify({ type, object }) + "\n");
    if (capBuffer && res.writableLength > maxBuffered) active.destroy();
  };
  const active: ActiveWatch = {
    resource: info.resource,
    expired: false,
    end() {
      cleanup();
      if (!res.writableEnded) res.end();
    },
    destroy() {
      cleanup();
      res.destroy();
      req.socket.destroy();
    },
    sees: (o) => (!p.namespace || o.metadata.namespace === p.namespace) && (!filter || filter(o)),
    stall(ms) {
      stalled = true;
      timers.push(setTimeout(() => active.end(), ms));
    },
  };
  res.on("close", cleanup);
  req.on("close", cleanup);

  const send = (type: Exclude<EventType, "BOOKMARK" | "ERROR">, o: KubeObject) => {
    write(type, p.encode(withTypeMeta(o, info), first));
    first = false;
  };

  // Which objects the client holds as matching, so selector transitions become ADDED/DELETED.
  const visible = new Set<string>();
  // Objects changed between the requested resourceVersion and now: whether the client holds them is unknown.
  const unknown = new Set<string>();
  const deliver = (e: SourceEvent) => {
    if (!filter) {
      send(e.type, e.object);
      return;
    }
    const k = keyOf(e.object);
    const held = visible.has(k) || (unknown.has(k) && e.type !== "ADDED");
    unknown.delete(k);
    if (e.type === "DELETED") {
      visible.delete(k);
      if (held || filter(e.object)) send("DELETED", e.object);
    } else if (filter(e.object)) {
      visible.add(k);
      send(held ? "MODIFIED" : "ADDED", e.object);
    } else if (held) {
      visible.delete(k);
      send("DELETED", e.object);
    }
  };

  const rvParam = p.resourceVersion ?? "";
  const bookmarkOf = (rv: string): Record<string, unknown> =>
    (p.bookmark ? p.bookmark(rv) : { kind: info.kind, apiVersion: info.apiVersion, metadata: { resourceVersion: rv } }) as Record<string, unknown>;
  if (rvParam === "" || rvParam === "0" || p.sendInitialEvents) {
    for (const o of source.list()) {
      if (filter && !filter(o)) continue;
      visible.add(keyOf(o));
      send("ADDED", o);
    }
    if (p.sendInitialEvents) {
      const end = bookmarkOf(String(store.resourceVersion));
      const metadata = end.metadata as Record<string, unknown>;
      write("BOOKMARK", { ...end, metadata: { ...metadata, annotations: { "k8s.io/initial-events-end": "true" } } });
    }
  } else {
    let replay: SourceEvent[];
    try {
      const rv = Number(rvParam);
      // A resourceVersion from the future means the demo cluster restarted under the client: a real apiserver would
      // answer "Too large resource version" (504), which client-node re-watches forever; 410 makes it re-list.
      if (rv > store.resourceVersion) throw new ExpiredError(rv, store.oldestResumable);
      replay = source.since(rv);
    } catch (err) {
      if (!(err instanceof ExpiredError)) throw err;
      active.expired = true;
      write("ERROR", expiredStatus(err.message));
      active.end();
      return active;
    }
    if (filter) {
      const touched = new Set(replay.map((e) => keyOf(e.object)));
      for (const k of touched) unknown.add(k);
      for (const o of source.list()) if (!touched.has(keyOf(o)) && filter(o)) visible.add(keyOf(o));
    }
    for (const e of replay) deliver(e);
  }
  // Synchronous since the snapshot/replay above: no event can fall between them and the subscription.
  if (closed) return active;
  unsubscribe.push(source.subscribe(deliver));
  capBuffer = true;

  if (p.bookmarks) {
    timers.push(
      setInterval(
        () => write("BOOKMARK", bookmarkOf(String(store.resourceVersion))),
        p.bookmarkIntervalMs,
      ).unref(),
    );
  }
  timers.push(setTimeout(() => active.end(), p.timeoutSeconds * 1000).unref());
  return active;
}

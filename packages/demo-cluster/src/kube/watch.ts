import type { IncomingMessage, ServerResponse } from "node:http";
import { ExpiredError, type KubeObject, type Resource, type Store, type StoreEvent } from "../store";
import type { ResourceInfo } from "./discovery";
import type { Predicate } from "./selectors";

/**
 * Watch streams: chunked, newline-delimited `{"type","object"}` events as a real apiserver sends them.
 * Without a resourceVersion (or "0") every matching object is first sent as ADDED; with one, the store's event log
 * is replayed from there (or a single 410 Expired ERROR event ends the stream), then live events follow.
 * With a selector, an object that stops matching is sent as DELETED and one that starts matching as ADDED, as the
 * apiserver's watch cache does.
 */

export type EventType = "ADDED" | "MODIFIED" | "DELETED" | "BOOKMARK" | "ERROR";

export interface WatchParams {
  store: Store;
  info: ResourceInfo;
  /** namespace/label/field filter; undefined = everything */
  filter?: Predicate;
  namespace?: string;
  /** the request's resourceVersion ("" or "0" = start with the current state) */
  resourceVersion?: string;
  bookmarks: boolean;
  bookmarkIntervalMs: number;
  /** seconds until the server ends the stream */
  timeoutSeconds: number;
  /** turns an object into what the event carries (plain object, or a Table for kubectl) */
  encode: (object: KubeObject, first: boolean) => unknown;
  /** ends the stream when this many bytes are queued for a client that does not read */
  maxBufferedBytes?: number;
}

export interface ActiveWatch {
  resource: Resource;
  /** the requested resourceVersion had expired: one 410 ERROR event was sent and the stream ended */
  expired: boolean;
  /** end the stream cleanly (the client sees a normal end of body and re-watches) */
  end(): void;
  /** reset the connection (the client sees an error) */
  destroy(): void;
}

const keyOf = (o: KubeObject) => `${o.metadata.namespace ?? ""}/${o.metadata.name}`;

export function expiredStatus(message: string): Record<string, unknown> {
  return { kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", message, reason: "Expired", code: 410 };
}

/** Ensure the object carries kind and apiVersion (events always do on a real apiserver). */
export function withTypeMeta(o: KubeObject, info: ResourceInfo): KubeObject {
  return o.kind && o.apiVersion ? o : { ...o, apiVersion: info.apiVersion, kind: info.kind };
}

/** Serve a watch on `res`. Returns the registered stream (already ended when the resourceVersion expired). */
export function serveWatch(req: IncomingMessage, res: ServerResponse, p: WatchParams): ActiveWatch {
  const { store, info, filter } = p;
  const maxBuffered = p.maxBufferedBytes ?? 64 * 1024 * 1024;
  let closed = false;
  let first = true;
  // only live events are held to the buffer cap: the initial burst is written synchronously before the client reads
  let capBuffer = false;
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
    if (closed) return;
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
  const deliver = (e: StoreEvent) => {
    if (e.resource !== info.resource) return;
    if (p.namespace && e.object.metadata.namespace !== p.namespace) return;
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
  if (rvParam === "" || rvParam === "0") {
    for (const o of store.list(info.resource, p.namespace)) {
      if (filter && !filter(o)) continue;
      visible.add(keyOf(o));
      send("ADDED", o);
    }
  } else {
    let replay: StoreEvent[];
    try {
      const rv = Number(rvParam);
      // A resourceVersion from the future means the demo cluster restarted under the client: a real apiserver would
      // answer "Too large resource version" (504), which client-node re-watches forever; 410 makes it re-list.
      if (rv > store.resourceVersion) throw new ExpiredError(rv, store.oldestResumable);
      replay = store.eventsSince(info.resource, rv);
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
      for (const o of store.list(info.resource, p.namespace)) if (!touched.has(keyOf(o)) && filter(o)) visible.add(keyOf(o));
    }
    for (const e of replay) deliver(e);
  }
  // Synchronous since the snapshot/replay above: no event can fall between them and the subscription.
  if (closed) return active;
  unsubscribe.push(store.subscribe(deliver));
  capBuffer = true;

  if (p.bookmarks) {
    timers.push(
      setInterval(
        () =>
          write("BOOKMARK", {
            kind: info.kind,
            apiVersion: info.apiVersion,
            metadata: { resourceVersion: String(store.resourceVersion) },
          }),
        p.bookmarkIntervalMs,
      ).unref(),
    );
  }
  timers.push(setTimeout(() => active.end(), p.timeoutSeconds * 1000).unref());
  return active;
}

/**
 * A list's objects as kube-apiserver returns them: in etcd's key order (`namespace/name`, byte order), and in pages
 * when the client asks with `limit` (the `continue` token of the next page, and `remainingItemCount` when no selector
 * narrowed the list). The token has kube-apiserver's form (unpadded base64url of `{"v":"meta.k8s.io/v1","rv":N,"start":KEY}`).
 * The demo keeps no old states: a later page is cut from the current objects (kube-apiserver serves it from the
 * snapshot of the first page, the demo from now), and a token older than its event log is refused with 410 as after a
 * compaction.
 */
import type { KubeObject } from "../store";

export interface Page {
  items: KubeObject[];
  /** the list's resourceVersion: the first page's, on every page */
  resourceVersion: string;
  continue?: string;
  remainingItemCount?: number;
}

export type PageError = { code: 400 | 410; message: string };

const keyOf = (o: KubeObject) => (o.metadata.namespace ? `${o.metadata.namespace}/${o.metadata.name}` : o.metadata.name);

/** Objects in etcd's key order. */
export function inKeyOrder(items: readonly KubeObject[]): KubeObject[] {
  return items
    .map((o) => [keyOf(o), o] as const)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([, o]) => o);
}

export const CONTINUE_TOO_OLD =
  "The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.";

function decode(token: string): { rv: number; start: string } | string {
  try {
    const v = JSON.parse(Buffer.from(token, "base64url").toString("utf8")) as { v?: unknown; rv?: unknown; start?: unknown };
    if (v.v !== "meta.k8s.io/v1") return "continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)";
    if (typeof v.rv !== "number" || !Number.isInteger(v.rv) || v.rv <= 0 || typeof v.start !== "string") return "continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)";
    return { rv: v.rv, start: v.start };
  } catch {
    return "continue key is not valid: the key could not be decoded";
  }
}

/**
 * One page of `all` (already filtered by the request's selectors): `limit` and `continue` as the request gave them
 * (empty or absent: the whole list), the current resourceVersion `rv`, the oldest one the demo can still continue from.
 */
export function pageOf(all: readonly KubeObject[], o: { limit: string | null; continue: string | null; rv: number; oldest: number; selected: boolean }): Page | PageError {
  const sorted = inKeyOrder(all);
  let listRv = o.rv;
  let from = 0;
  if (o.continue) {
    const t = decode(o.continue);
    if (typeof t === "string") return { code: 400, message: t };
    if (t.rv < o.oldest) return { code: 410, message: CONTINUE_TOO_OLD };
    listRv = t.rv;
    // the first key after the last one returned (the token's start is that key with a NUL appended)
    const after = t.start.endsWith("\u0000") ? t.start.slice(0, -1) : t.start;
    from = sorted.findIndex((x) => keyOf(x) > after);
    if (from < 0) from = sorted.length;
  }
  const limit = o.limit && /^\d+$/.test(o.limit) ? Number(o.limit) : 0;
  if (limit <= 0 || from + limit >= sorted.length) return { items: sorted.slice(from), resourceVersion: String(listRv) };
  const items = sorted.slice(from, from + limit);
  const start = `${keyOf(items[items.length - 1])}\u0000`;
  const token = Buffer.from(JSON.stringify({ v: "meta.k8s.io/v1", rv: listRv, start })).toString("base64url");
  const page: Page = { items, resourceVersion: String(listRv), continue: token };
  if (!o.selected) page.remainingItemCount = sorted.length - from - limit;
  return page;
}

/**
 * Which requests the server entry answers itself from the latest poll's pushed answers (server/inbound/pushed.ts), and
 * whether the client takes them gzipped. Everything else, including any spelling of these paths that Next.js would treat
 * differently (another case, a trailing slash, escapes, other query parameters), goes on to Next.js.
 */

export interface PushedRequest<R extends string> {
  route: R;
  /** `?cluster=`, undefined when absent */
  cluster: string | undefined;
  /** the query string as sent ("" or "?cluster=…") */
  search: string;
}

/** The pushed route a GET of `url` asks for, exactly `<basePath>/api/v1/<route>` with at most one `cluster`, or null. */
export function pushedRequest<R extends string>(url: string, basePath: string, routes: readonly R[]): PushedRequest<R> | null {
  const q = url.indexOf("?");
  const pathname = q < 0 ? url : url.slice(0, q);
  const prefix = `${basePath}/api/v1/`;
  if (!pathname.startsWith(prefix)) return null;
  const route = pathname.slice(prefix.length) as R;
  if (!routes.includes(route)) return null;
  const search = q < 0 ? "" : url.slice(q);
  let cluster: string | undefined;
  for (const [k, v] of new URLSearchParams(search)) {
    if (k !== "cluster" || cluster !== undefined || v === "") return null;
    cluster = v;
  }
  return { route, cluster, search };
}

/** Smaller answers are sent as they are (gzip would save less than its own cost). */
export const GZIP_MIN_BYTES = 1024;

/** Whether an Accept-Encoding header takes gzip (RFC 9110 12.5.3: listed, or `*`, with a q-value above 0). */
export function acceptsGzip(header: string | undefined): boolean {
  if (!header) return false;
  let star: boolean | undefined;
  for (const part of header.split(",")) {
    const [coding, ...params] = part.split(";").map((s) => s.trim().toLowerCase());
    const qParam = params.find((p) => p.startsWith("q="));
    const q = qParam === undefined ? 1 : Number(qParam.slice(2));
    const ok = Number.isFinite(q) && q > 0;
    if (coding === "gzip" || coding === "x-gzip") return ok;
    if (coding === "*") star = ok;
  }
  return star ?? false;
}

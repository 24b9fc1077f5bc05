/**
 * The URL of an API read as the client builds it (components/data/queries.ts): the path and its parameters in the order
 * given, empty ones left out. Pages that start a read from the HTML's head (a preload) build the same URL with it, so that
 * the client's fetch takes the preloaded response.
 */
export function apiPath(path: string, params: Record<string, string | number | undefined | null>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== "") q.set(k, String(v));
  const s = q.toString();
  return s ? `${path}?${s}` : path;
}

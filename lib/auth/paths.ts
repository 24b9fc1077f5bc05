/** Paths served without authentication in every mode: by default the probes, which the kubelet calls without credentials. */
export const DEFAULT_EXEMPT_PATHS = ["/api/healthz", "/api/readyz"] as const;

/** Exact paths, or a prefix when the entry ends with `/*` (`/api/public/*`). A trailing slash on the request is ignored. */
export function isExempt(path: string, exemptPaths: readonly string[]): boolean {
  const p = path.length > 1 ? path.replace(/\/+$/, "") : path;
  return exemptPaths.some((e) => (e.endsWith("/*") ? p.startsWith(e.slice(0, -1)) || p === e.slice(0, -2) : p === e));
}

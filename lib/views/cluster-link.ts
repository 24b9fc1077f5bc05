/**
 * Which cluster a view shows lives in its URL's `cluster` parameter; the first configured cluster is the default and
 * takes none, so that a link without the parameter and the default's own link are one URL.
 */

/** The `cluster` parameter that shows `name`: null (no parameter) for the first configured cluster, the default. */
export function clusterParam(name: string, clusters: readonly { name: string }[]): string | null {
  return name === clusters[0]?.name ? null : name;
}

/** The link (a query string, for the same path) that shows the view of `search` for `name`, its other parameters kept. */
export function clusterHref(search: string | URLSearchParams, name: string, clusters: readonly { name: string }[]): string {
  const params = new URLSearchParams(search);
  const value = clusterParam(name, clusters);
  if (value === null) params.delete("cluster");
  else params.set("cluster", value);
  return `?${params}`;
}

/** The parameters a link to another view keeps: which cluster, and the theme. */
export const KEPT_PARAMS = ["cluster", "theme"] as const;

/** The kept parameters of `search` (their non-empty values only), for a link to another view. */
export function keptParams(search: string | Pick<URLSearchParams, "get">): URLSearchParams {
  const from = typeof search === "string" ? new URLSearchParams(search) : search;
  const keep = new URLSearchParams();
  for (const k of KEPT_PARAMS) {
    const v = from.get(k);
    if (v) keep.set(k, v);
  }
  return keep;
}

/**
 * Each cluster's own dashboard, from the `fleet.dashboardUrl` template: `{cluster}` is replaced by the cluster's name. The
 * name comes from the metrics backend (a label value: untrusted), so only a DNS label (what a dashboard's configuration
 * accepts as a cluster name) gets a link, percent-encoded all the same, and only an http(s) URL without user information
 * comes out. Pure.
 */

export const CLUSTER_PLACEHOLDER = "{cluster}";
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

function httpUrl(text: string): URL | null {
  let u: URL;
  try {
    u = new URL(text);
  } catch {
    return null;
  }
  if (u.protocol !== "http:" && u.protocol !== "https:") return null;
  if (u.username || u.password) return null;
  return u;
}

/** Why `template` is not a usable dashboard URL template, or null when it is. */
export function templateProblem(template: string): string | null {
  if (!template.includes(CLUSTER_PLACEHOLDER)) return `expected a URL containing ${CLUSTER_PLACEHOLDER}, e.g. https://lens.{cluster}.example.com/`;
  if (/[{}]/.test(template.replaceAll(CLUSTER_PLACEHOLDER, ""))) return `only ${CLUSTER_PLACEHOLDER} may be written in braces`;
  if (/^[a-z][a-z0-9+.-]*:\/\/[^/?#]*@/i.test(template)) return "no user or password in the URL";
  const u = httpUrl(template.replaceAll(CLUSTER_PLACEHOLDER, "example"));
  if (!u) return "expected an http:// or https:// URL once {cluster} is replaced by a name";
  return null;
}

/** The dashboard link of `cluster`, or null: no template, a name that is not a DNS label, or no http(s) URL results. */
export function dashboardLink(template: string | undefined, cluster: string): string | null {
  if (!template || cluster.length > 63 || !DNS_LABEL.test(cluster)) return null;
  const u = httpUrl(template.replaceAll(CLUSTER_PLACEHOLDER, encodeURIComponent(cluster)));
  return u ? u.href : null;
}

/** The browser's check before it renders a link it was given: http(s) only. */
export function isHttpLink(href: string | null | undefined): href is string {
  return typeof href === "string" && httpUrl(href) !== null;
}

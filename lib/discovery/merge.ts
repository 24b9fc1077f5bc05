/**
 * From discovered TAs to the TA entries the poller reads: each discovered TA gives url, flavor, collectors, how it is
 * reached and, for mTLS, where the client certificate is; the configured entry of the same role overrides any of these
 * field by field (maps such as `collectors` and `tls` merged key by key). An entry that names url, flavor and collectors
 * stands alone even when nothing was discovered for its role. The result is validated with the TA schema, so a bad
 * override gets the same error a hand-written entry gets.
 */
import { formatConfigIssues, taSchema, type DiscoverConfig, type TaConfig } from "@/lib/config/schema";
import type { Role } from "@/lib/model";
import { ROLES } from "@/lib/model";
import type { DiscoveredTa } from "@/lib/discovery/operators";
import { isPlainObject } from "@/lib/ta/extract";

export type ReachMode = "direct" | "port-forward" | "service-proxy";

/**
 * Where the dashboard reaches a discovered TA. `auto`: directly from inside the cluster; from outside, HTTPS TAs through
 * a port-forward to a TA pod (TLS and the client certificate stay end to end) and plain-HTTP TAs through the API
 * server's service proxy. The service proxy is never chosen for an mTLS TA: it would not carry the client certificate.
 */
export function reachModeFor(ta: Pick<DiscoveredTa, "mtls">, mode: DiscoverConfig["reach"], inCluster: boolean): ReachMode {
  if (mode === "auto") return inCluster ? "direct" : ta.mtls ? "port-forward" : "service-proxy";
  if (mode === "service-proxy" && ta.mtls) return "port-forward";
  return mode;
}

/**
 * The Secret that holds a discovered mTLS TA's client certificate when the configuration names none: the one each
 * operator's certificates are issued into (docs/target-allocator.md, "Client certificates").
 */
export function conventionalClientSecret(ta: Pick<DiscoveredTa, "flavor" | "namespace" | "configMap">): string {
  if (ta.flavor === "cloudwatch") return `${ta.namespace}/amazon-cloudwatch-observability-agent-client-cert`;
  return `${ta.namespace}/${ta.configMap.replace(/-targetallocator$/, "")}-ta-client-cert`;
}

/** The `reach` value of a TA entry for a discovered TA (server/ta/reach.ts reads it). */
export function reachEntry(ta: DiscoveredTa, mode: ReachMode): unknown {
  if (mode === "direct") return "direct";
  if (mode === "port-forward") return { portForward: { namespace: ta.namespace, service: ta.service.name, port: ta.service.port } };
  return { serviceProxy: { namespace: ta.namespace, service: ta.service.name, port: ta.service.port } };
}

/** The raw TA entry a discovered TA stands for, before overrides. */
export function discoveredEntry(ta: DiscoveredTa, discover: Pick<DiscoverConfig, "reach">, inCluster: boolean): Record<string, unknown> {
  const mode = reachModeFor(ta, discover.reach, inCluster);
  const entry: Record<string, unknown> = {
    url: ta.url,
    flavor: ta.flavor,
    collectors: { namespace: ta.collectors.namespace, selector: { ...ta.collectors.selector } },
    reach: reachEntry(ta, mode),
  };
  if (ta.mtls) {
    // the server certificate names the Service; through a tunnel the host is not that name
    entry.tls = { serverName: `${ta.service.name}.${ta.namespace}.svc` };
    entry.tlsSecret = { secret: conventionalClientSecret(ta) };
  }
  return entry;
}

/** `override` over `base`, maps merged key by key, anything else replaced. */
export function mergeEntry(base: Record<string, unknown>, override: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base };
  for (const [k, v] of Object.entries(override)) out[k] = isPlainObject(v) && isPlainObject(base[k]) ? mergeEntry(base[k] as Record<string, unknown>, v) : v;
  // files named for the certificate replace the Secret, and the other way round
  if (isPlainObject(override.tls) && (override.tls.cert || override.tls.key) && !("tlsSecret" in override)) delete out.tlsSecret;
  if ("tlsSecret" in override && isPlainObject(out.tls)) out.tls = Object.fromEntries(Object.entries(out.tls).filter(([k]) => k !== "cert" && k !== "key"));
  return out;
}

export interface EffectiveTas {
  entries: Partial<Record<Role, TaConfig>>;
  /** one line per problem of a role's merged entry: `targetAllocators.per-node.timeoutSeconds: ...` */
  problems: { role: Role; message: string }[];
}

const standsAlone = (o: Record<string, unknown> | undefined) => Boolean(o && o.url && o.flavor && o.collectors);

/** The TA entries of a discovered cluster: discovered values, overridden field by field by the configured entries. */
export function effectiveTargetAllocators(found: readonly DiscoveredTa[], discover: DiscoverConfig, inCluster: boolean): EffectiveTas {
  const entries: EffectiveTas["entries"] = {};
  const problems: EffectiveTas["problems"] = [];
  for (const role of ROLES) {
    const ta = found.find((f) => f.role === role);
    const override = discover.overrides[role];
    if (!ta && !standsAlone(override)) continue;
    const raw = ta ? mergeEntry(discoveredEntry(ta, discover, inCluster), override ?? {}) : override!;
    const r = taSchema.safeParse(raw);
    if (r.success) entries[role] = r.data;
    else for (const line of formatConfigIssues(r.error, raw)) problems.push({ role, message: `targetAllocators.${role}.${line}` });
  }
  return { entries, problems };
}

/**
 * Whether the server may serve anonymously on the address it listens on. `auth.mode: none` lets in everyone who reaches the
 * port: fine on loopback (the embedded demo, a `kubectl port-forward`), a mistake on 0.0.0.0 unless something else restricts
 * who reaches the port (a NetworkPolicy, a ClusterIP Service only reached with port-forward), which the configuration must
 * then say explicitly with `auth.allowAnonymous: true`.
 */
import { parseIp } from "@/lib/auth/cidr";
import type { AuthMode } from "@/lib/auth/decide";

/** localhost, 127.0.0.0/8, ::1 (and their IPv4-mapped forms). 0.0.0.0 and :: are every interface, not loopback. */
export function isLoopbackHost(host: string): boolean {
  const h = host.trim().toLowerCase().replace(/^\[|\]$/g, "");
  if (h === "localhost" || h.endsWith(".localhost")) return true;
  const ip = parseIp(h);
  if (!ip) return false;
  return ip.family === 4 ? ip.value >> BigInt(24) === BigInt(127) : ip.value === BigInt(1);
}

export interface ExposureInput {
  /** the address the server listens on (HOSTNAME), e.g. 0.0.0.0 */
  host: string;
  port: number;
  /** the configuration file, or undefined for the embedded demo cluster (anonymous by construction) */
  configFile: string | undefined;
  mode: AuthMode;
  allowAnonymous: boolean;
}

/** The one-line refusal when the server would serve anonymously beyond loopback without saying so; null when it may start. */
export function anonymousExposure(o: ExposureInput): string | null {
  if (o.mode !== "none" || isLoopbackHost(o.host)) return null;
  const where = `${o.host.includes(":") ? `[${o.host}]` : o.host}:${o.port}`;
  if (o.configFile === undefined) {
    return `allocation-lens: refusing to serve the embedded demo cluster on ${where}: it is anonymous and can inject faults; listen on loopback (unset HOST/HOSTNAME, or HOST=127.0.0.1), or give a configuration (ALLOCATION_LENS_CONFIG) with auth.mode proxy or token`;
  }
  if (o.allowAnonymous) return null;
  return `allocation-lens: refusing to serve anonymously on ${where}: auth.mode is none in ${o.configFile}; set auth.mode to proxy or token, or set auth.allowAnonymous: true if something else restricts who reaches this port (a NetworkPolicy, port-forward only), or listen on 127.0.0.1`;
}

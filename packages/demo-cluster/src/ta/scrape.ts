/**
 * `/scrape_configs`: every job's scrape config, keys sorted at every level (the TA re-marshals through Go maps). Over plain
 * HTTP the TA marshals with `MarshalSecretValue = false`, so every non-empty Prometheus `Secret` field reads `<secret>`;
 * over TLS (or with allow_insecure_auth_secrets) they are in clear.
 */
import type { TaState } from "./state";
import { goJson } from "./encode";

export const SECRET_PLACEHOLDER = "<secret>";

/** Fields of type config.Secret in Prometheus (common HTTP client config and the SD configs), by key. */
const SECRET_KEYS = new Set([
  "password", // basic_auth, openstack, ...
  "credentials", // authorization
  "bearer_token", // legacy http client
  "client_secret", // oauth2, azure
  "secret_key", // ec2, lightsail
  "auth_token", // marathon
  "token", // consul
  "application_credential_secret", // openstack
]);

function redact(value: unknown, key: string | undefined, parentKey: string | undefined): unknown {
  if (typeof value === "string") {
    if (value === "") return value;
    if (key !== undefined && SECRET_KEYS.has(key)) return SECRET_PLACEHOLDER;
    if (key === "key" && parentKey === "tls_config") return SECRET_PLACEHOLDER;
    return value;
  }
  if (Array.isArray(value)) {
    // proxy_connect_header: map[string][]Secret; http_headers.<name>.secrets: []Secret
    const secretList = parentKey === "proxy_connect_header" || key === "secrets";
    return value.map((v) => (secretList && typeof v === "string" && v !== "" ? SECRET_PLACEHOLDER : redact(v, undefined, key)));
  }
  if (value && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = redact(v, k, key);
    return out;
  }
  return value;
}

function sortDeep(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortDeep);
  if (value && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(value).sort()) out[k] = sortDeep((value as Record<string, unknown>)[k]);
    return out;
  }
  return value;
}

/** The scrape configs as served: redacted unless `clear`. */
export function scrapeConfigsView(state: TaState, clear: boolean): Record<string, unknown> {
  const sorted = sortDeep(state.scrapeConfigs) as Record<string, unknown>;
  return clear ? sorted : (redact(sorted, undefined, undefined) as Record<string, unknown>);
}

const cache = new WeakMap<TaState, { clear?: string; redacted?: string }>();

export function scrapeConfigsJson(state: TaState, clear: boolean): string {
  let c = cache.get(state);
  if (!c) cache.set(state, (c = {}));
  const k = clear ? "clear" : "redacted";
  return (c[k] ??= goJson(scrapeConfigsView(state, clear), state.flavor));
}

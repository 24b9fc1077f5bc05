import "server-only";
/**
 * A TA's client certificate and key (and possibly its CA) from a Kubernetes Secret, read with the user's own credentials
 * (the kubeconfig's user, or the service account in the cluster). The bytes are held in memory by the caller only: they
 * are never written to disk, logged, or put in an error. Errors name the Secret, the key and the missing permission.
 */
import * as k8s from "@kubernetes/client-node";
import type { TlsSecretConfig } from "@/lib/config/schema";
import { SourceError } from "@/lib/source-error";
import { forbiddenMessage, parseSecretRef } from "@/lib/ta/reach";
import { abortable } from "@/server/kube/informers";

export interface TlsMaterial {
  ca?: Buffer;
  cert: Buffer;
  key: Buffer;
}

export interface SecretReadOptions {
  /** the SourceError's source (default `secret`) */
  source?: string;
  /** a deadline for the read (default 30 s) */
  timeoutMs?: number;
}

const DEFAULT_CA_KEY = "ca.crt";

/** The status of a failed client-node call, if it got an answer. */
export function kubeStatus(e: unknown): number | undefined {
  const x = e as { code?: unknown; statusCode?: unknown };
  return typeof x?.code === "number" ? x.code : typeof x?.statusCode === "number" ? x.statusCode : undefined;
}

/** Reads `spec.secret` and decodes its keys. Rejects with a SourceError that names the Secret and the key, never a value. */
export async function readTlsSecret(kc: k8s.KubeConfig, spec: Pick<TlsSecretConfig, "secret"> & Partial<TlsSecretConfig>, options: SecretReadOptions = {}): Promise<TlsMaterial> {
  const source = options.source ?? "secret";
  const ref = parseSecretRef(spec.secret);
  const hint = "tlsSecret names the Secret holding the TA's client certificate: namespace/name";
  if (!ref) throw new SourceError({ source, kind: "config", message: "tlsSecret.secret is not namespace/name", hint });
  const { namespace, name } = ref;
  const stop = new AbortController();
  const timeoutMs = options.timeoutMs ?? 30_000;
  const timer = setTimeout(() => stop.abort(), timeoutMs);
  let secret: k8s.V1Secret;
  try {
    secret = await kc.makeApiClient(k8s.CoreV1Api).readNamespacedSecret({ name, namespace }, abortable(stop.signal));
  } catch (e) {
    const status = kubeStatus(e);
    if (status === 401 || status === 403) {
      throw new SourceError({
        source,
        kind: "forbidden",
        status,
        message: forbiddenMessage("get", "secrets", namespace),
        hint: `the Kubernetes user reads the Secret ${namespace}/${name} (tlsSecret) with its own credentials`,
      });
    }
    if (status === 404) {
      throw new SourceError({ source, kind: "not_found", status, message: `the Secret ${namespace}/${name} does not exist`, hint: "check tlsSecret.secret and the kubeconfig's context" });
    }
    if (stop.signal.aborted) {
      throw new SourceError({ source, kind: "timeout", message: `reading the Secret ${namespace}/${name} took longer than ${timeoutMs / 1000} s` });
    }
    // never the error's text for an answer (its body); a network failure's first line names no value
    const text = status === undefined ? String((e as Error)?.message ?? e).split("\n")[0].slice(0, 200) : `HTTP ${status}`;
    throw new SourceError({ source, kind: status === undefined ? "network" : "http", status, message: `reading the Secret ${namespace}/${name} failed: ${text}` });
  } finally {
    clearTimeout(timer);
  }
  const data = secret.data ?? {};
  const value = (key: string, required: boolean): Buffer | undefined => {
    const encoded = data[key];
    if (encoded === undefined || encoded === "") {
      if (!required) return undefined;
      throw new SourceError({
        source,
        kind: "config",
        message: `the Secret ${namespace}/${name} has no key ${key}`,
        hint: `name the key holding it in tlsSecret (it has: ${Object.keys(data).sort().join(", ") || "no keys"})`,
      });
    }
    return Buffer.from(encoded, "base64");
  };
  const cert = value(spec.certKey ?? "tls.crt", true)!;
  const key = value(spec.keyKey ?? "tls.key", true)!;
  const ca = value(spec.caKey ?? DEFAULT_CA_KEY, spec.caKey !== undefined);
  return ca ? { ca, cert, key } : { cert, key };
}

import "server-only";
/**
 * What the TA client and the Prometheus client share: reading a configured file (certificate, key, token) into a
 * SourceError that names the file and the fix, and one keep-alive agent per endpoint with the configured TLS (mTLS when a
 * client certificate is given).
 */
import fs from "node:fs";
import http from "node:http";
import https from "node:https";
import { SourceError } from "@/lib/source-error";
import type { TlsConfig } from "@/lib/config/schema";

/** TLS error codes and messages: a failure of the handshake or of certificate checks rather than of the network. */
export const TLS_CODES = /CERT|TLS|SSL|ALERT|HANDSHAKE|SELF_SIGNED|UNABLE_TO_VERIFY|ERR_SSL/i;

/** The file's bytes, or a `config` SourceError naming `what`, the path and why (`hint`: where in the configuration). */
export function readConfiguredFile(path: string, what: string, source: string, hint: string): Buffer {
  try {
    return fs.readFileSync(path);
  } catch (e) {
    throw new SourceError({
      source,
      kind: "config",
      message: `cannot read the ${what} file ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`,
      hint,
    });
  }
}

export function clientAgent(
  base: URL,
  tls: TlsConfig | undefined,
  options: http.AgentOptions,
  read: (path: string, what: string) => Buffer,
  maxVersion?: "TLSv1.3",
): http.Agent {
  if (base.protocol !== "https:") return new http.Agent(options);
  const file = (path: string | undefined, what: string) => (path ? read(path, what) : undefined);
  return new https.Agent({
    ...options,
    ca: file(tls?.ca, "CA certificate"),
    cert: file(tls?.cert, "client certificate"),
    key: file(tls?.key, "client key"),
    servername: tls?.serverName,
    rejectUnauthorized: !tls?.insecureSkipVerify,
    minVersion: "TLSv1.2",
    ...(maxVersion ? { maxVersion } : {}),
  });
}

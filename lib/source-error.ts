/**
 * One error type for every source (a TA route, a Kubernetes informer): what failed, how, and what to do about it.
 * Routes and views show `message` and `hint`; the retry policy reads `kind` and `status`.
 */
export type SourceErrorKind =
  | "network" // connection refused/reset, DNS
  | "timeout"
  | "tls" // handshake, certificate
  | "http" // non-2xx answer
  | "too_large"
  | "parse" // not JSON / not Prometheus text
  | "schema" // JSON of the wrong shape
  | "forbidden" // 401/403
  | "not_found" // 404 (for a CRD: not installed)
  | "config";

export interface SourceErrorInfo {
  source: string;
  kind: SourceErrorKind;
  message: string;
  status?: number;
  hint?: string;
}

export class SourceError extends Error implements SourceErrorInfo {
  readonly source: string;
  readonly kind: SourceErrorKind;
  readonly status?: number;
  readonly hint?: string;

  constructor(info: SourceErrorInfo) {
    super(info.message);
    this.name = "SourceError";
    this.source = info.source;
    this.kind = info.kind;
    this.status = info.status;
    this.hint = info.hint;
  }

  toJSON(): SourceErrorInfo {
    return { source: this.source, kind: this.kind, message: this.message, status: this.status, hint: this.hint };
  }
}

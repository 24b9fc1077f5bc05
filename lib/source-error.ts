/**
 * One error type for every source (a TA route, a Kubernetes informer): what failed, how, and what to do about it.
 * Routes and views show `message` and `hint`, which are short and fixed per kind of failure; the retry policy reads `kind`
 * and `status`. What only the operator should see (a file path, an excerpt of an error body) goes in `detail`: it is
 * written to the server log once per change of error and never serialized into an answer (`toJSON` leaves it out).
 */
import type { z } from "zod";
import { SOURCE_ERROR_KINDS, type sourceErrorSchema } from "@/lib/api/schemas";

export { SOURCE_ERROR_KINDS };

export type SourceErrorKind = (typeof SOURCE_ERROR_KINDS)[number];

/** What an answer says of a failed source (`stale[].error`): declared by its schema in lib/api/schemas.ts. */
export type SourceErrorInfo = z.infer<typeof sourceErrorSchema>;

export class SourceError extends Error implements SourceErrorInfo {
  readonly source: string;
  readonly kind: SourceErrorKind;
  readonly status?: number;
  readonly hint?: string;
  /** for the server log only: never in `toJSON`, never a secret value */
  declare readonly detail?: string;
  /** a network failure's system error code (`ECONNREFUSED`, `ECONNRESET`, ...), for the retry policy; not serialized */
  declare readonly errno?: string;

  constructor(info: SourceErrorInfo & { detail?: string; errno?: string }) {
    super(info.message);
    this.name = "SourceError";
    this.source = info.source;
    this.kind = info.kind;
    this.status = info.status;
    this.hint = info.hint;
    if (info.detail !== undefined) Object.defineProperty(this, "detail", { value: info.detail, enumerable: false });
    if (info.errno !== undefined) Object.defineProperty(this, "errno", { value: info.errno, enumerable: false });
  }

  toJSON(): SourceErrorInfo {
    return { source: this.source, kind: this.kind, message: this.message, status: this.status, hint: this.hint };
  }
}

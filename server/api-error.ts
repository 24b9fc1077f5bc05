/**
 * The API's errors and query validation, without Next.js: used by the route handlers (server/api.ts re-exports them) and by
 * the poll worker, which computes the answers (server/poll/answers.ts) and sends an ApiError back as status, code and
 * message.
 */
import type { z } from "zod";

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** Query parameters validated by a zod schema; a bad one is a 400 naming the parameter. */
export function queryParams<S extends z.ZodType>(url: string | URLSearchParams, schema: S): z.output<S> {
  const search = typeof url === "string" ? new URL(url).searchParams : url;
  const params = Object.fromEntries(search);
  const r = schema.safeParse(params);
  if (!r.success) {
    const i = r.error.issues[0];
    const what = i.code === "unrecognized_keys" ? `unknown parameter ${i.keys.join(", ")}` : `${i.path.join(".") || "query"}: ${i.message}`;
    throw new ApiError(400, "bad_request", what);
  }
  return r.data;
}

"use client";
/** The diagnostics status filter in the URL: `?status=fail,warn` (empty: every check). */
import { parseAsArrayOf, parseAsStringLiteral, useQueryState } from "nuqs";
import type { CheckStatus } from "@/lib/analysis/diagnostics";
import { STATUSES } from "@/lib/views/diagnostics-view";

const parser = parseAsArrayOf(parseAsStringLiteral(STATUSES)).withDefault([]).withOptions({ history: "replace" });

export function useStatusFilter() {
  const [statuses, set] = useQueryState("status", parser);
  return {
    statuses,
    toggle: (s: CheckStatus) => void set(statuses.includes(s) ? statuses.filter((x) => x !== s) : [...statuses, s]),
    clear: () => void set(null),
  };
}

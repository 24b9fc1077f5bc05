"use client";
/** The churn page's URL state: `?range=1h` (a preset) or `?from=&to=` (custom, ISO or ms), and `?role=`. */
import { parseAsString, parseAsStringLiteral, useQueryStates } from "nuqs";
import { ROLES, type Role } from "@/lib/model";
import { DEFAULT_RANGE, RANGE_KEYS, rangeRequest, type RangeKey } from "@/lib/views/churn-ranges";

const parsers = {
  range: parseAsStringLiteral(RANGE_KEYS).withDefault(DEFAULT_RANGE),
  from: parseAsString,
  to: parseAsString,
  role: parseAsStringLiteral(ROLES),
};

export function useChurnUrl() {
  const [p, set] = useQueryStates(parsers, { history: "replace" });
  const request = rangeRequest(p.range, p.from, p.to);
  return {
    range: p.range,
    request,
    role: p.role,
    /** a preset clears any custom range */
    setRange: (range: RangeKey) => void set({ range: range === DEFAULT_RANGE ? null : range, from: null, to: null }),
    setCustom: (from: string, to: string | null) => void set({ from, to }),
    setRole: (role: Role | null) => void set({ role }),
  };
}

export type ChurnUrl = ReturnType<typeof useChurnUrl>;

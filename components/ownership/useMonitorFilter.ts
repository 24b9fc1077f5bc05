"use client";
import { parseAsArrayOf, parseAsString, parseAsStringLiteral, useQueryStates } from "nuqs";
import { ROLES } from "@/lib/model";
import { OWNERSHIP_STATES, type MonitorFilter } from "@/lib/views/ownership-view";

/** The Ownership view's filters in the URL: `?ownership=double,orphaned&q=shop&role=per-node`. */
const parsers = {
  ownership: parseAsArrayOf(parseAsStringLiteral(OWNERSHIP_STATES)).withDefault([]),
  q: parseAsString.withDefault(""),
  role: parseAsStringLiteral(ROLES),
};

export function useMonitorFilter() {
  const [v, set] = useQueryStates(parsers, { history: "replace" });
  const filter: MonitorFilter = { states: v.ownership, q: v.q, role: v.role };
  return {
    filter,
    setStates: (states: MonitorFilter["states"]) => void set({ ownership: states.length ? [...states] : null }),
    setQ: (q: string) => void set({ q: q || null }),
    setRole: (role: MonitorFilter["role"]) => void set({ role }),
    clear: () => void set({ ownership: null, q: null, role: null }),
  };
}

export type MonitorFilterApi = ReturnType<typeof useMonitorFilter>;

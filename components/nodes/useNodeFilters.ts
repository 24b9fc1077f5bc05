"use client";
/** The node map's URL state (?zone=&state=&q=&node=&flow=), so a link from a portal opens the same filtered view and detail. */
import { parseAsArrayOf, parseAsString, parseAsStringLiteral, useQueryStates } from "nuqs";
import { ROLES } from "@/lib/model";
import { NODE_STATES, type NodeFilters } from "@/lib/views/node-map";

const parsers = {
  zone: parseAsString,
  state: parseAsArrayOf(parseAsStringLiteral(NODE_STATES)).withDefault([]),
  q: parseAsString.withDefault(""),
  node: parseAsString,
  flow: parseAsStringLiteral(ROLES),
};

export function useNodeUrlState() {
  const [p, set] = useQueryStates(parsers, { history: "replace" });
  const filters: NodeFilters = { zone: p.zone, states: p.state, q: p.q };
  return {
    filters,
    node: p.node,
    flowRole: p.flow,
    setZone: (zone: string | null) => void set({ zone }),
    setStates: (state: NodeFilters["states"]) => void set({ state: state.length ? [...state] : null }),
    setQ: (q: string) => void set({ q: q || null }),
    clearFilters: () => void set({ zone: null, state: null, q: null }),
    /** opening pushes a history entry (Back closes the detail again); closing replaces it */
    openNode: (node: string | null) => void set({ node }, { history: node ? "push" : "replace" }),
    setFlowRole: (flow: (typeof ROLES)[number] | null) => void set({ flow }),
  };
}

export type NodeUrlState = ReturnType<typeof useNodeUrlState>;

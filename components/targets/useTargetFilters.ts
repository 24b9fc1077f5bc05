"use client";
/** The Targets view's filters, kept in the URL (?q=&class=&node=&collector=&job=&role=&sort=) so a portal link opens the same list. */
import { createSerializer, parseAsArrayOf, parseAsString, parseAsStringLiteral, useQueryStates } from "nuqs";
import { ROLES, TARGET_CLASSES } from "@/lib/model";
import { TARGET_SORTS, type TargetFilters } from "@/lib/views/target-window";

export const targetFilterParsers = {
  q: parseAsString,
  class: parseAsArrayOf(parseAsStringLiteral(TARGET_CLASSES)),
  node: parseAsString,
  collector: parseAsString,
  job: parseAsString,
  role: parseAsStringLiteral(ROLES),
  sort: parseAsStringLiteral(TARGET_SORTS).withDefault("job"),
};

/** Builds the href of the same page with some filters changed (other parameters, such as cluster and theme, are kept). */
export const serializeTargetFilters = createSerializer(targetFilterParsers);

export const NO_FILTERS = { q: null, class: null, node: null, collector: null, job: null, role: null } as const;

export function useTargetFilters() {
  const [filters, setFilters] = useQueryStates(targetFilterParsers, { history: "replace" });
  return [filters satisfies TargetFilters, setFilters] as const;
}

export type SetTargetFilters = ReturnType<typeof useTargetFilters>[1];

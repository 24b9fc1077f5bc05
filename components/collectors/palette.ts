import type { Eligibility } from "@/lib/views/collectors-view";

/** Bar fills by eligibility, from the theme variables: a not-eligible collector's targets are ghosts, hence the ghost colour. */
export const ELIGIBILITY_FILL: Record<Eligibility, string> = {
  // a little softer than the accent, so the not-eligible bars stand out in both themes
  eligible: "color-mix(in srgb, var(--accent) 78%, var(--panel))",
  not_eligible: "var(--c-ghost)",
  not_in_ta: "var(--c-nodeless)",
};

export const AXIS_TICK = { fill: "var(--muted)", fontSize: 11 } as const;
export const GRID_STROKE = "var(--border)";

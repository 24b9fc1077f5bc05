import type { Role } from "@/lib/model";

/** Chart colours from the theme variables: readiness in the warning hue, reassignments in the accent; the cluster-scraper a lighter shade. */
const light = (v: string) => `color-mix(in srgb, ${v} 45%, var(--panel))`;

export const READY_FILL: Record<Role, string> = { "per-node": "var(--warn)", "cluster-scraper": light("var(--warn)") };
export const MOVES_FILL: Record<Role, string> = { "per-node": "var(--accent)", "cluster-scraper": light("var(--accent)") };
export const LOCALITY_STROKE: Record<Role, string> = { "per-node": "var(--c-local)", "cluster-scraper": "var(--accent)" };

export const AXIS_TICK = { fill: "var(--muted)", fontSize: 11 } as const;
export const GRID_STROKE = "var(--border)";

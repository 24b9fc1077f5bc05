/**
 * The demo cluster's named faults and their parameters (docs/ARCHITECTURE.md, "Fault injection"), validated with zod so that an
 * unknown fault or parameter is a 400 naming the problem. Shared by the control API and the dashboard's demo panel.
 */
import { z } from "zod";
import { ROLES } from "@allocation-lens/allocation/model";

const role = z.enum(ROLES, { message: `expected ${ROLES.map((r) => JSON.stringify(r)).join(" or ")}` });
const node = z.string({ message: "expected a node name" }).min(1, "expected a node name");

export const faultSchema = z.discriminatedUnion(
  "fault",
  [
    z.object({ fault: z.literal("collector-not-ready"), node }).strict(),
    z.object({ fault: z.literal("collector-crashloop"), node }).strict(),
    z.object({ fault: z.literal("collector-deleted-unseen"), node }).strict(),
    z.object({ fault: z.literal("node-add"), zone: z.string().min(1).optional() }).strict(),
    z.object({ fault: z.literal("node-remove"), node }).strict(),
    z.object({ fault: z.literal("rollout"), role }).strict(),
    z
      .object({
        fault: z.literal("annotate-monitor"),
        namespace: z.string().min(1, "expected the monitor's namespace"),
        name: z.string().min(1, "expected the monitor's name"),
        value: z.string().nullable(),
        kind: z.enum(["ServiceMonitor", "PodMonitor"]).optional(),
        // the annotation's key: by default the one the demo's TAs read; another spelling tests a key they ignore
        key: z
          .string()
          .regex(/^([a-z0-9]([-a-z0-9.]*[a-z0-9])?\/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/, "expected an annotation key (an optional DNS prefix and /, then a name)")
          .optional(),
      })
      .strict(),
    z.object({ fault: z.literal("routing-off"), role }).strict(),
    z.object({ fault: z.literal("ta-outage"), role, seconds: z.number().positive().max(3600).default(60) }).strict(),
    z.object({ fault: z.literal("ta-slow"), role, ms: z.number().int().min(0).max(120_000) }).strict(),
    z.object({ fault: z.literal("ta-malformed"), role }).strict(),
    z.object({ fault: z.literal("crd-missing"), kind: z.enum(["ServiceMonitor", "PodMonitor"], { message: 'expected "ServiceMonitor" or "PodMonitor"' }) }).strict(),
    z.object({ fault: z.literal("hostile-target"), role }).strict(),
    // readyAfterMs: the replacement is Running but not Ready for that long first (a starting container), as a Deployment's is
    z.object({ fault: z.literal("ta-pod-replaced"), role, readyAfterMs: z.number().int().min(0).max(600_000).default(0) }).strict(),
    // the TA process killed (a crashed container) and started again after downSeconds, its state lost
    z.object({ fault: z.literal("ta-killed"), role, downSeconds: z.number().min(0).max(3600).default(0) }).strict(),
  ],
  { message: "unknown fault" },
);

export type Fault = z.infer<typeof faultSchema>;
export type FaultName = Fault["fault"];

export const FAULT_NAMES: readonly FaultName[] = faultSchema.options.map((o) => o.shape.fault.value);

/** Parses a fault request body; the error names the unknown fault or the bad parameter. */
export function parseFault(body: unknown): { ok: true; fault: Fault } | { ok: false; error: string } {
  const r = faultSchema.safeParse(body);
  if (r.success) return { ok: true, fault: r.data };
  const name = (body as { fault?: unknown } | null)?.fault;
  const issue = r.error.issues[0];
  if (issue.code === "invalid_union" || (issue.path.length === 1 && issue.path[0] === "fault")) {
    return { ok: false, error: `unknown fault ${JSON.stringify(name)}; known faults: ${FAULT_NAMES.join(", ")}` };
  }
  if (issue.code === "unrecognized_keys") return { ok: false, error: `fault ${String(name)}: unknown parameter ${issue.keys.join(", ")}` };
  return { ok: false, error: `fault ${String(name)}: ${issue.path.join(".") || "body"}: ${issue.message}` };
}

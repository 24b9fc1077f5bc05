/**
 * The Prometheus HTTP API answers the churn view reads, validated before use. Thanos Query and Mimir serve the same format.
 * https://prometheus.io/docs/prometheus/latest/querying/api/#format-overview
 * https://prometheus.io/docs/prometheus/latest/querying/api/#range-queries (matrix)
 * https://prometheus.io/docs/prometheus/latest/querying/api/#instant-queries (vector)
 */
import { z } from "zod";

/** `[ <unix time, seconds, float>, "<sample value>" ]`; values are strings because of NaN and ±Inf. */
const sample = z.tuple([z.number(), z.string()]);

export const matrixSchema = z.array(z.object({ metric: z.record(z.string(), z.string()), values: z.array(sample) }));
export const vectorSchema = z.array(z.object({ metric: z.record(z.string(), z.string()), value: sample }));

export const promResponseSchema = z.discriminatedUnion("status", [
  z.object({
    status: z.literal("success"),
    data: z.discriminatedUnion("resultType", [
      z.object({ resultType: z.literal("matrix"), result: matrixSchema }),
      z.object({ resultType: z.literal("vector"), result: vectorSchema }),
      z.object({ resultType: z.literal("scalar"), result: sample }),
      z.object({ resultType: z.literal("string"), result: sample }),
    ]),
    warnings: z.array(z.string()).optional(),
  }),
  z.object({ status: z.literal("error"), errorType: z.string(), error: z.string(), warnings: z.array(z.string()).optional() }),
]);

export type PromResponse = z.infer<typeof promResponseSchema>;
export type Matrix = z.infer<typeof matrixSchema>;
export type Vector = z.infer<typeof vectorSchema>;

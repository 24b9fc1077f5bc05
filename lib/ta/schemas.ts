/**
 * zod schemas of what a Target Allocator serves (docs/target-allocator.md, "HTTP endpoints").
 * Upstream: open-telemetry/opentelemetry-operator cmd/otel-allocator/internal/server/server.go
 * (JobHandler, TargetsHandler, ScrapeConfigsHandler); the cloudwatch fork serves the same shapes.
 */
import { z } from "zod";

/** GET /jobs: job name -> {_link}. */
export const jobsSchema = z.record(z.string(), z.object({ _link: z.string() }).loose());

/** One HTTP service-discovery item: exactly one address, pre-relabel discovered labels. */
export const sdItemSchema = z.object({
  targets: z.array(z.string()).min(1),
  labels: z.record(z.string(), z.string()).default({}),
});

/** GET /jobs/{job}/targets: one key per known collector. Go may serialize an empty slice as null. */
export const jobTargetsSchema = z.record(
  z.string(),
  z.object({
    _link: z.string().optional(),
    targets: z
      .array(sdItemSchema)
      .nullable()
      .transform((t) => t ?? []),
  }),
);

/** GET /scrape_configs: job name -> config. Only the keys are ever read; values are dropped at once (they carry secrets). */
export const scrapeConfigKeysSchema = z.record(z.string(), z.unknown()).transform((o) => Object.keys(o).sort());

export type JobsPayload = z.infer<typeof jobsSchema>;
export type JobTargetsPayload = z.infer<typeof jobTargetsSchema>;

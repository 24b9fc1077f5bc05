import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { buildOpenApi, openApiText } from "@/lib/api/openapi";

const FILE = path.resolve(import.meta.dirname, "../../docs/openapi.json");

describe("OpenAPI document", () => {
  it("docs/openapi.json is what the zod schemas produce now (regenerate: node --import tsx scripts/openapi.ts)", () => {
    expect(fs.existsSync(FILE)).toBe(true);
    expect(fs.readFileSync(FILE, "utf8")).toBe(openApiText());
  });

  it("documents every route under /api/v1 with a 200 schema that resolves", () => {
    const doc = buildOpenApi() as { openapi: string; paths: Record<string, { get: { responses: Record<string, { content?: Record<string, { schema: { $ref: string } }> }> } }>; components: { schemas: Record<string, unknown> } };
    expect(doc.openapi).toBe("3.1.0");
    expect(Object.keys(doc.paths).sort()).toEqual(
      ["clusters", "summary", "nodes", "nodes/{name}", "collectors", "monitors", "targets", "churn", "diagnostics"].map((p) => `/api/v1/${p}`).sort(),
    );
    const refs = JSON.stringify(doc).match(/"#\/components\/schemas\/[^"]+"/g) ?? [];
    expect(refs.length).toBeGreaterThan(10);
    for (const ref of refs) expect(doc.components.schemas, ref).toHaveProperty(ref.slice('"#/components/schemas/'.length, -1));
    for (const [p, item] of Object.entries(doc.paths)) expect(item.get.responses["200"].content?.["application/json"].schema.$ref, p).toMatch(/^#\/components\/schemas\//);
  });

  it("takes the targets and churn query parameters from the schemas the routes validate with", () => {
    const doc = buildOpenApi() as { paths: Record<string, { get: { parameters: { name: string; in: string }[] } }> };
    const names = (p: string) => doc.paths[p].get.parameters.map((x) => x.name);
    expect(names("/api/v1/targets")).toEqual(expect.arrayContaining(["cluster", "role", "class", "node", "collector", "job", "q", "offset", "limit", "sort"]));
    expect(names("/api/v1/churn")).toEqual(expect.arrayContaining(["cluster", "from", "to", "buckets"]));
    expect(doc.paths["/api/v1/nodes/{name}"].get.parameters).toContainEqual(expect.objectContaining({ name: "name", in: "path" }));
  });
});

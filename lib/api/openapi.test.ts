import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { apiPaths, buildOpenApi, openApiText } from "@/lib/api/openapi";
import { API_ROUTES, UNDOCUMENTED_ROUTES, apiPathOf } from "@/lib/api/routes";
import { findApiRoutes } from "@/scripts/api-routes";

const FILE = path.resolve(import.meta.dirname, "../../docs/openapi.json");

type Doc = {
  openapi: string;
  paths: Record<string, { get: { parameters: { name: string; in: string }[]; responses: Record<string, { content?: Record<string, { schema: { $ref: string } }> }> } }>;
  components: { schemas: Record<string, unknown> };
};

describe("OpenAPI document", () => {
  // the route handlers as the file system has them: a route added under app/api/v1 shows up here
  const routes = findApiRoutes();

  it("finds the route handlers under app/api/v1", () => {
    expect(routes.length).toBeGreaterThan(10);
    expect(routes).toEqual(expect.arrayContaining(["/api/v1/summary", "/api/v1/nodes/{name}", "/api/v1/lost", "/api/v1/demo/faults"]));
  });

  it("has a response schema for every route under app/api/v1 (the demo-only ones left out with their reason)", () => {
    const withoutSchema = routes.filter((p) => !(p in API_ROUTES) && !(p in UNDOCUMENTED_ROUTES));
    expect(withoutSchema, "routes without an entry in API_ROUTES (lib/api/routes.ts)").toEqual([]);
    expect(Object.keys(UNDOCUMENTED_ROUTES).every((p) => p.startsWith("/api/v1/demo/"))).toBe(true);
    const doc = buildOpenApi(routes) as Doc;
    expect(Object.keys(doc.paths)).toEqual(routes.filter((p) => !(p in UNDOCUMENTED_ROUTES)));
  });

  it("refuses a route without a schema, and a documented route that no handler serves", () => {
    expect(() => apiPaths([...routes, "/api/v1/bogus"])).toThrow(/no response schema for \/api\/v1\/bogus/);
    expect(() => apiPaths(routes.filter((p) => p !== "/api/v1/lost"))).toThrow(/\/api\/v1\/lost, which no route.ts/);
  });

  it("docs/openapi.json is what the zod schemas produce now (regenerate: npm run openapi)", () => {
    expect(fs.existsSync(FILE)).toBe(true);
    expect(fs.readFileSync(FILE, "utf8")).toBe(openApiText(routes));
  });

  it("gives every route a 200 schema that resolves", () => {
    const doc = buildOpenApi(routes) as Doc;
    expect(doc.openapi).toBe("3.1.0");
    const refs = JSON.stringify(doc).match(/"#\/components\/schemas\/[^"]+"/g) ?? [];
    expect(refs.length).toBeGreaterThan(10);
    for (const ref of refs) expect(doc.components.schemas, ref).toHaveProperty(ref.slice('"#/components/schemas/'.length, -1));
    for (const [p, item] of Object.entries(doc.paths)) expect(item.get.responses["200"].content?.["application/json"].schema.$ref, p).toMatch(/^#\/components\/schemas\//);
  });

  it("takes the targets and churn query parameters from the schemas the routes validate with", () => {
    const doc = buildOpenApi(routes) as Doc;
    const names = (p: string) => doc.paths[p].get.parameters.map((x) => x.name);
    expect(names("/api/v1/targets")).toEqual(expect.arrayContaining(["cluster", "role", "class", "node", "collector", "job", "q", "offset", "limit", "sort"]));
    expect(names("/api/v1/churn")).toEqual(expect.arrayContaining(["cluster", "from", "to", "buckets", "last", "node", "pod", "source"]));
    expect(doc.paths["/api/v1/nodes/{name}"].get.parameters).toContainEqual(expect.objectContaining({ name: "name", in: "path" }));
    expect(names("/api/v1/clusters")).toEqual([]);
  });

  it("maps route files to OpenAPI paths", () => {
    expect(apiPathOf("app/api/v1/nodes/[name]/route.ts")).toBe("/api/v1/nodes/{name}");
    expect(apiPathOf("app/api/v1/summary/route.ts")).toBe("/api/v1/summary");
    expect(apiPathOf("app/api/v1/summary/helpers.ts")).toBeNull();
  });
});

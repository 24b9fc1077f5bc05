/**
 * The OpenAPI 3.1 document of the JSON API (`/api/v1/*`), generated from the zod schemas: the answers of
 * lib/api/schemas.ts and the query schemas the routes validate with, for the routes lib/api/routes.ts describes.
 * `buildOpenApi` takes the routes found under app/api/v1 (scripts/api-routes.ts walks the folder) and throws for one that
 * has no entry in API_ROUTES, nor a reason in UNDOCUMENTED_ROUTES. `npm run openapi` writes docs/openapi.json; a unit test
 * keeps that file in step. Pure: no I/O.
 */
import { z } from "zod";
import pkg from "@/package.json";
import { apiErrorSchema } from "@/lib/api/schemas";
import { API_ROUTES, UNDOCUMENTED_ROUTES, type RouteDoc } from "@/lib/api/routes";
type JsonSchema = Record<string, unknown>;

const REF = (id: string) => `#/components/schemas/${id}`;

/** JSON Schema ids of the response schemas (their `.meta({ id })`). */
function idOf(schema: z.ZodType): string {
  const id = z.globalRegistry.get(schema)?.id;
  if (typeof id !== "string") throw new Error("a response schema has no id");
  return id;
}

const clusterParam = {
  name: "cluster",
  in: "query",
  required: false,
  description: "the cluster's name from the configuration; default: the first cluster",
  schema: { type: "string" },
};

/** One query parameter per property of a query schema (input side: what the URL carries). */
function queryParameters(schema: z.ZodType, docs: Record<string, string> = {}): JsonSchema[] {
  const json = z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) as { properties?: Record<string, JsonSchema>; required?: string[] };
  return Object.entries(json.properties ?? {}).map(([name, s]) => {
    const { description = name === "cluster" ? clusterParam.description : docs[name], ...rest } = s as JsonSchema & { description?: string };
    return {
      name,
      in: "query",
      required: (json.required ?? []).includes(name),
      ...(description ? { description } : {}),
      schema: rest,
    };
  });
}

const error = (description: string) => ({ description, content: { "application/json": { schema: { $ref: REF(idOf(apiErrorSchema)) } } } });

function operation(doc: RouteDoc): JsonSchema {
  const clusterErrors: Record<string, string> =
    doc.cluster === false
      ? {}
      : { "404": "unknown cluster (code unknown_cluster)", "503": "the first poll of the cluster has not finished yet (code not_ready)" };
  const errors = { ...clusterErrors, ...doc.errors, "500": "an unexpected failure (code internal); the server log says more" };
  const parameters = [
    ...Object.entries(doc.path ?? {}).map(([name, description]) => ({ name, in: "path", required: true, description, schema: { type: "string" } })),
    ...(doc.query ? queryParameters(doc.query, doc.params) : doc.cluster === false ? [] : [clusterParam]),
  ];
  return {
    get: {
      operationId: doc.operationId,
      summary: doc.summary,
      parameters,
      responses: {
        "200": { description: doc.description, content: { "application/json": { schema: { $ref: REF(idOf(doc.ok)) } } } },
        ...Object.fromEntries(
          Object.entries(errors)
            .sort(([x], [y]) => x.localeCompare(y))
            .map(([code, d]) => [code, error(d)]),
        ),
      },
    },
  };
}

/**
 * The paths of the document for the routes found under app/api/v1 (OpenAPI paths, `{name}` for a `[name]` folder): every
 * one documented from API_ROUTES or left out for its UNDOCUMENTED_ROUTES reason; throws, naming them, for routes without
 * a schema and for table entries without a route.
 */
export function apiPaths(found: readonly string[]): Record<string, JsonSchema> {
  const missing = found.filter((p) => !(p in API_ROUTES) && !(p in UNDOCUMENTED_ROUTES));
  if (missing.length) throw new Error(`no response schema for ${missing.join(", ")}: add the route to API_ROUTES in lib/api/routes.ts (or its reason to UNDOCUMENTED_ROUTES)`);
  const gone = Object.keys(API_ROUTES).filter((p) => !found.includes(p));
  if (gone.length) throw new Error(`API_ROUTES documents ${gone.join(", ")}, which no route.ts under app/api/v1 serves`);
  return Object.fromEntries(
    [...found]
      .filter((p) => p in API_ROUTES)
      .sort()
      .map((p) => [p, operation(API_ROUTES[p])]),
  );
}

export function buildOpenApi(routes: readonly string[]): JsonSchema {
  const { schemas } = z.toJSONSchema(z.globalRegistry, { uri: REF, target: "draft-2020-12" }) as { schemas: Record<string, JsonSchema> };
  // Each component's own $id/$schema are noise inside an OpenAPI document.
  const components = Object.fromEntries(
    Object.entries(schemas)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([id, s]) => {
        const rest = { ...s };
        delete rest.$id;
        delete rest.$schema;
        return [id, rest];
      }),
  );
  return {
    openapi: "3.1.0",
    info: {
      title: "Allocation Lens API",
      version: pkg.version,
      description:
        "View-shaped JSON of how Target Allocators spread scrape targets over collector pods. Every view is computed once per poll on " +
        "the server (one poller per cluster, whatever the number of clients) and says how fresh it is (`at`, `pollIntervalMs`, `stale`).",
    },
    jsonSchemaDialect: "https://json-schema.org/draft/2020-12/schema",
    servers: [{ url: "/" }],
    paths: apiPaths(routes),
    components: { schemas: components },
  };
}

/** The document as docs/openapi.json holds it. */
export function openApiText(routes: readonly string[]): string {
  return `${JSON.stringify(buildOpenApi(routes), null, 2)}\n`;
}

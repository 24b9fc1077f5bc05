/**
 * Writes docs/openapi.json from the zod schemas (lib/api/openapi.ts) for every route under app/api/v1 (fails naming a
 * route without a schema). Run: npm run openapi (node --import tsx scripts/openapi.ts)
 * With --check, exits 1 when the committed file differs from what the schemas produce now.
 */
import fs from "node:fs";
import path from "node:path";
import { openApiText } from "../lib/api/openapi";
import { findApiRoutes } from "./api-routes";

const file = path.resolve(import.meta.dirname, "..", "docs", "openapi.json");
const text = openApiText(findApiRoutes());
if (process.argv.includes("--check")) {
  const current = fs.existsSync(file) ? fs.readFileSync(file, "utf8") : "";
  if (current !== text) {
    console.error(`${path.relative(process.cwd(), file)} is out of date: run node --import tsx scripts/openapi.ts`);
    process.exit(1);
  }
  console.log(`${path.relative(process.cwd(), file)} is up to date`);
} else {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
  console.log(`wrote ${path.relative(process.cwd(), file)}`);
}

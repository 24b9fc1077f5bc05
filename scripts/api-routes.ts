/**
 * The routes of the JSON API as the file system has them: every `route.ts` under app/api/v1, as OpenAPI paths
 * (lib/api/routes.ts's apiPathOf: a `[name]` folder is `{name}`). scripts/openapi.ts documents them and
 * lib/api/openapi.test.ts checks that each has a schema.
 */
import fs from "node:fs";
import path from "node:path";
import { apiPathOf } from "../lib/api/routes";

const ROOT = path.resolve(import.meta.dirname, "..");

export function findApiRoutes(root = ROOT, folder = "app/api/v1"): string[] {
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const e of fs.readdirSync(path.join(root, dir), { withFileTypes: true })) {
      const rel = `${dir}/${e.name}`;
      if (e.isDirectory()) walk(rel);
      else {
        const p = apiPathOf(rel);
        if (p) found.push(p);
      }
    }
  };
  walk(folder);
  return found.sort();
}

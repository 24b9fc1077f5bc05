#!/usr/bin/env node
// Bundles the server entry (server/inbound/main.ts and what it imports, `next` excepted) into one ES module that Node
// runs as is: `node allocation-lens-server.mjs` from the app directory. `npm run build` writes it into the build
// directory (.next/allocation-lens-server.mjs); the Dockerfile copies it beside the standalone output.
//   node scripts/build-server.mjs [--outfile FILE]
import path from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));

/** Builds the entry into `outfile`; returns its path. */
export async function buildServerEntry(outfile = path.join(root, process.env.ALLOCATION_LENS_DIST_DIR || ".next", "allocation-lens-server.mjs")) {
  await build({
    entryPoints: [path.join(root, "server", "inbound", "main.ts")],
    outfile,
    bundle: true,
    platform: "node",
    target: "node20",
    format: "esm",
    // next stays a package of the app (its node_modules); "server-only" guards React Server Component bundles, not this one
    external: ["next", "next/*"],
    alias: { "@": root, "server-only": path.join(root, "scripts", "server-only-stub.ts") },
    // CommonJS dependencies bundled into an ES module may call require() for Node built-ins
    banner: { js: 'import { createRequire as __alCreateRequire } from "node:module"; const require = __alCreateRequire(import.meta.url);' },
    logLevel: "warning",
    legalComments: "none",
  });
  return outfile;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const i = process.argv.indexOf("--outfile");
  const out = await buildServerEntry(i >= 0 ? path.resolve(process.argv[i + 1]) : undefined);
  console.log(`allocation-lens: server entry bundled into ${path.relative(process.cwd(), out)}`);
}

#!/usr/bin/env node
// Bundles the server entry (server/inbound/main.ts and what it imports, `next` excepted) into one ES module that Node
// runs as is (`node allocation-lens-server.mjs` from the app directory), and the poll worker (server/poll/worker.ts) into
// another beside it. `npm run build` writes both into the build directory (.next/allocation-lens-server.mjs and
// .next/allocation-lens-poll-worker.mjs); the Dockerfile copies them beside the standalone output.
//   node scripts/build-server.mjs [--outfile FILE]
import path from "node:path";
import { fileURLToPath } from "node:url";
import { build, stop } from "esbuild";

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));

/** The poll worker's bundle, beside the server entry's: the server entry tells Next's bundles where it is. */
export const POLL_WORKER_FILE = "allocation-lens-poll-worker.mjs";

/**
 * Builds the entry into `outfile`, and the poll worker (server/poll/worker.ts) beside it; returns the entry's path.
 * esbuild's service process is stopped afterwards: `npm start` runs the server in the process that built it, and the idle
 * service would otherwise stay beside it for the server's lifetime (about 250 MB resident after these two bundles).
 */
export async function buildServerEntry(outfile = path.join(root, process.env.ALLOCATION_LENS_DIST_DIR || ".next", "allocation-lens-server.mjs")) {
  try {
    await bundle(path.join(root, "server", "inbound", "main.ts"), outfile);
    // The worker carries the Kubernetes client, the TA reader, the analysis and the history: all bundled but the native
    // addons (SQLite's, and the memory release's), loaded from node_modules.
    await bundle(path.join(root, "server", "poll", "worker.ts"), path.join(path.dirname(outfile), POLL_WORKER_FILE), ["better-sqlite3", "@allocation-lens/memory"]);
  } finally {
    await stop();
  }
  return outfile;
}

async function bundle(entry, outfile, external = []) {
  await build({
    entryPoints: [entry],
    outfile,
    bundle: true,
    platform: "node",
    target: "node20",
    format: "esm",
    // next stays a package of the app (its node_modules); "server-only" guards React Server Component bundles, not this one
    external: ["next", "next/*", ...external],
    alias: { "@": root, "server-only": path.join(root, "scripts", "server-only-stub.ts") },
    // CommonJS dependencies bundled into an ES module may call require() for Node built-ins
    banner: { js: 'import { createRequire as __alCreateRequire } from "node:module"; const require = __alCreateRequire(import.meta.url);' },
    logLevel: "warning",
    legalComments: "none",
    // Whitespace only (names stay, so stack traces still name the functions): the source text is kept by V8 for as long
    // as the code runs, and the worker's bundle (the Kubernetes client's models among it) is 7.3 MB as written, 3.9 MB so.
    minifyWhitespace: true,
  });
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const i = process.argv.indexOf("--outfile");
  const out = await buildServerEntry(i >= 0 ? path.resolve(process.argv[i + 1]) : undefined);
  console.log(`allocation-lens: server entry bundled into ${path.relative(process.cwd(), out)}`);
}

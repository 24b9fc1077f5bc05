import type { NextConfig } from "next";

/**
 * `ALLOCATION_LENS_BASE_PATH=/prefix` serves the app under a path prefix (behind an ingress or a portal). It is applied at
 * build time: Next.js bakes the base path into the client bundles, and the client fetches prefix it (NEXT_PUBLIC_BASE_PATH).
 */
function basePathFromEnv(raw = process.env.ALLOCATION_LENS_BASE_PATH ?? ""): string {
  const value = raw.trim().replace(/\/+$/, "");
  if (!value) return "";
  if (!/^(\/[A-Za-z0-9._~-]+)+$/.test(value)) {
    throw new Error(`ALLOCATION_LENS_BASE_PATH must look like /prefix or /a/b (letters, digits, . _ ~ -), got ${JSON.stringify(raw)}`);
  }
  return value;
}

const basePath = basePathFromEnv();

const nextConfig: NextConfig = {
  // The container image is built from the standalone output. Both it and `npm start` serve through the server entry
  // (server/inbound/main.ts), which reads the build's configuration from required-server-files.json.
  output: process.env.ALLOCATION_LENS_STANDALONE === "1" ? "standalone" : undefined,
  // A build into another directory (the standalone test builds into .next/<dir> so that it never clobbers .next itself).
  distDir: process.env.ALLOCATION_LENS_DIST_DIR || undefined,
  basePath: basePath || undefined,
  env: { NEXT_PUBLIC_BASE_PATH: basePath },
  reactStrictMode: true,
  poweredByHeader: false,
  // A build with another distDir would rewrite tsconfig.json's include list: such throwaway builds (the standalone test)
  // name a tsconfig of their own, and skip the type check, which `npm test` runs by itself.
  typescript: process.env.ALLOCATION_LENS_TSCONFIG ? { tsconfigPath: process.env.ALLOCATION_LENS_TSCONFIG, ignoreBuildErrors: true } : undefined,
  // Defence in depth behind the server entry's body gate (server/inbound/server.ts), which refuses bodies before Next sees
  // them: Next's proxy stage would otherwise buffer up to 10 MB of any request body.
  experimental: { proxyClientMaxBodySize: 64 * 1024 },
  // The workspace packages are TypeScript sources (their exports name .ts files): Next compiles them like the app's own.
  // The dashboard uses the allocation rules, the demo's launcher and control client, and its fault contract.
  transpilePackages: ["@allocation-lens/allocation", "@allocation-lens/demo-cluster"],
  // The demo's certificate library is server-side Node code: kept out of the bundler. The Kubernetes client is bundled:
  // loaded from node_modules it brings every API group of Kubernetes into the serving thread (its generated sources alone
  // about 13 MB of the heap, 29 MB with their code), where only the Lease API and the kubeconfig are used; bundled,
  // what is not used is left out (the serving thread's heap 91 -> 78 MB on 10 clusters, 2026-12-06).
  serverExternalPackages: ["@peculiar/x509"],
  // The poll worker (a bundle of its own, scripts/build-server.mjs) loads the SQLite addon and the memory release's
  // (packages/memory, a workspace: node_modules links to its folder) from node_modules; nothing in Next's bundles imports
  // them, so the standalone output is told to carry them.
  outputFileTracingIncludes: {
    "/*": [
      "./node_modules/better-sqlite3/package.json",
      "./node_modules/better-sqlite3/lib/**/*",
      "./node_modules/better-sqlite3/build/Release/better_sqlite3.node",
      "./node_modules/bindings/**/*",
      "./node_modules/file-uri-to-path/**/*",
      "./node_modules/@allocation-lens/memory/package.json",
      "./node_modules/@allocation-lens/memory/index.mjs",
      "./node_modules/@allocation-lens/memory/build/Release/allocation_lens_memory.node",
    ],
  },
};

export default nextConfig;

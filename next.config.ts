import type { NextConfig } from "next";

const nextConfig: NextConfig = {
  // The container image is built from the standalone output; `npm start` uses `next start`, which does not support it.
  output: process.env.ALLOCATION_LENS_STANDALONE === "1" ? "standalone" : undefined,
  reactStrictMode: true,
  poweredByHeader: false,
  // The embedded demo cluster and the Kubernetes client are server-side Node code: keep them out of the bundler.
  serverExternalPackages: ["@kubernetes/client-node", "@peculiar/x509"],
};

export default nextConfig;

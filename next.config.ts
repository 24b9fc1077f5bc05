import type { NextConfig } from "next";

const nextConfig: NextConfig = {
  output: "standalone",
  reactStrictMode: true,
  poweredByHeader: false,
  // The embedded demo cluster and the Kubernetes client are server-side Node code: keep them out of the bundler.
  serverExternalPackages: ["@kubernetes/client-node", "@peculiar/x509"],
};

export default nextConfig;

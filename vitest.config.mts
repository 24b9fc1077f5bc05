import { defineConfig } from "vitest/config";
import path from "node:path";

export default defineConfig({
  resolve: {
    alias: {
      "@": path.resolve(import.meta.dirname),
      // `server-only` throws outside React Server Components; tests import server modules directly.
      "server-only": path.resolve(import.meta.dirname, "scripts/server-only-stub.ts"),
    },
  },
  test: {
    include: ["lib/**/*.test.{ts,tsx}", "server/**/*.test.ts", "app/**/*.test.ts", "components/**/*.test.{ts,tsx}", "packages/**/*.test.ts", "test-support/**/*.test.ts", "test/**/*.test.ts"],
    environment: "node",
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: "forks",
  },
});

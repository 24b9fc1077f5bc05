import { defineConfig } from "@playwright/test";

/**
 * Browser tests against the real server on the embedded demo cluster (started in e2e/global-setup.ts), in Debian's
 * Chromium (Playwright never downloads a browser here). Fixed timezone and locale; one worker, because tests drive
 * faults on the one demo cluster.
 */
export default defineConfig({
  testDir: "e2e/tests",
  globalSetup: "./e2e/global-setup.ts",
  globalTeardown: "./e2e/global-teardown.ts",
  workers: 1,
  retries: 0,
  timeout: 60_000,
  expect: { timeout: 20_000 },
  reporter: [["list"], ["json", { outputFile: process.env.PLAYWRIGHT_JSON_OUTPUT_NAME ?? "artifacts/playwright.json" }]],
  outputDir: "test-results",
  use: {
    baseURL: process.env.E2E_BASE_URL ?? "http://127.0.0.1:3107",
    viewport: { width: 1280, height: 800 },
    timezoneId: "UTC",
    locale: "en-GB",
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
      args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic"],
    },
    trace: "off",
    screenshot: "only-on-failure",
  },
});

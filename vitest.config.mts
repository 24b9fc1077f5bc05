import { configDefaults, defineConfig } from "vitest/config";
import path from "node:path";

/**
 * The vitest tiers (CONTRIBUTING.md, "Tests"), one project each, by folder; `npm test` runs them (scripts/test.mjs), and
 * `npx vitest run --project <name>` runs one (`npx vitest run` runs them all, group after group: sequence.groupOrder):
 * - unit: the tests beside the code (lib/, components/, app/, server/, each package's src/, test-support/): pure logic and
 *   small in-process servers, no demo cluster, no built app, no Go-built peer;
 * - acceptance: the suites against the embedded demo cluster and the Debian peers (kubectl, prometheus);
 * - built: the built server (`npm run build` first): the standalone output as the image runs it, two replicas;
 * - real-peers and differential, the real peers tier: the suites held to the Go-built peers (upstream's Target
 *   Allocator, the CloudWatch fork's, helm), each skipped with its reason when the peer is missing. The dashboard's
 *   suites on the real allocators (test/real-peers) time faults against polls: one at a time, nothing else running;
 *   then the demo's differential suites (packages/demo-cluster/test/real-peers), about two minutes each of waiting on the
 *   allocators' own timing (discovery batches, grace periods): all at once;
 * - control-plane: the demo and the dashboard on a real kube-apiserver and etcd (`--kube real`), one file at a time.
 */
const BESIDE_THE_CODE = ["lib", "components", "app", "server", "packages/*/src", "test-support"].map((d) => `${d}/**/*.test.{ts,tsx}`);
/** unit tests that need a process and a module graph of their own */
const OWN_PROCESS = ["server/inbound/**/*.test.{ts,tsx}"];
const ACCEPTANCE = ["test/acceptance", "test/integration", "test/deploy", "packages/*/test/acceptance"].map((d) => `${d}/**/*.test.ts`);
const BUILT = ["test/built/**/*.test.ts"];
const REAL_PEERS = ["test/real-peers/**/*.test.ts"];
const DIFFERENTIAL = ["packages/*/test/real-peers/**/*.test.ts"];
const CONTROL_PLANE = ["test/control-plane/**/*.test.ts", "packages/*/test/control-plane/**/*.test.ts"];

export default defineConfig({
  resolve: {
    alias: {
      "@": path.resolve(import.meta.dirname),
      // `server-only` throws outside React Server Components; tests import server modules directly.
      "server-only": path.resolve(import.meta.dirname, "scripts/server-only-stub.ts"),
    },
  },
  test: {
    environment: "node",
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: "forks",
    projects: [
      // pure logic and small in-process servers: both cores, and the files of a worker share its process and module cache
      // (a process and a module graph per file cost more than the tests themselves)...
      { extends: true, test: { name: "unit", include: BESIDE_THE_CODE, exclude: [...configDefaults.exclude, ...OWN_PROCESS], isolate: false, maxWorkers: 2, sequence: { groupOrder: 0 } } },
      // ...except the server entry's handlers: each file puts a runtime of its own on globalThis, which those modules keep
      { extends: true, test: { name: "unit-isolated", include: OWN_PROCESS, maxWorkers: 2, sequence: { groupOrder: 0 } } },
      // mostly waiting on polls, watches and timers: two files at a time (vitest's default here is one: cores - 1)
      { extends: true, test: { name: "acceptance", include: ACCEPTANCE, maxWorkers: 2, sequence: { groupOrder: 1 } } },
      // the standalone test builds its own copy of the app: alone
      { extends: true, test: { name: "built", include: BUILT, maxWorkers: 1, sequence: { groupOrder: 2 } } },
      { extends: true, test: { name: "real-peers", include: REAL_PEERS, maxWorkers: 1, sequence: { groupOrder: 3 } } },
      { extends: true, test: { name: "differential", include: DIFFERENTIAL, maxWorkers: 8, sequence: { groupOrder: 4 } } },
      { extends: true, test: { name: "control-plane", include: CONTROL_PLANE, maxWorkers: 1, sequence: { groupOrder: 5 } } },
    ],
  },
});

import next from "eslint-config-next/core-web-vitals";
import nextTs from "eslint-config-next/typescript";

// Module boundaries (docs/ARCHITECTURE.md, "Boundaries"). ESLint's own no-restricted-imports matches the import string as
// written, so each rule names the `@/` alias form and the relative form that climbs into the forbidden folder. It checks
// static imports and re-exports (type-only ones too); dynamic `import("...")` is covered by the no-restricted-syntax twin.
//
// Flat config replaces a rule's options rather than merging them, so the file groups below are disjoint and each gets
// every restriction that applies to it.

const SRC = "**/*.{ts,tsx,mts,cts,js,mjs,jsx}";
/**
 * Test code: unit tests beside their unit, and the test folders (test/ at the root, each package's test/, test-support/,
 * e2e/). Nothing else under server/, lib/, components/, app/ or a package's src/ is test code: a fixture or a harness lives
 * in a test folder, and product code may not import it (TEST_SUPPORT below).
 */
const TESTS = ["**/*.test.{ts,tsx}", "**/*.spec.{ts,tsx}", "e2e/**", "test/**", "packages/*/test/**", "test-support/**"];
/** the bench and the attack suite: test drivers, which may use the general test support */
const TOOLS = ["scripts/harness.mts", "scripts/bench.mts", "scripts/bench-fleet.mts", "scripts/bench-clusters.mts", "scripts/attack.mts", "scripts/attack-monitor.mts"];

const rule = (regex, message) => ({ regex, message, caseSensitive: true });

/** lib/ is pure logic: it imports nothing from the layers above it. */
const LIB_LAYER = [
  rule("^@/(server|components|app)(/|$)", "lib/ is pure: it imports nothing from server/, components/ or app/."),
  rule("^(\\.\\./)+(server|components|app)(/|$)", "lib/ is pure: it imports nothing from server/, components/ or app/."),
];
/** components/ render props: data comes from the API through components/data, never from server code. */
const COMPONENTS_LAYER = [
  rule("^@/server(/|$)", "components/ import nothing from server/: data comes from /api/v1 through components/data."),
  rule("^(\\.\\./)+server(/|$)", "components/ import nothing from server/: data comes from /api/v1 through components/data."),
];
/**
 * The demo is a separate program (packages/demo-cluster): production code uses only its public exports, the launcher and
 * control client (`@allocation-lens/demo-cluster`, `.../launcher`) and the fault contract (`.../faults`), never its
 * internals or its tests, and never its files by path.
 */
const DEMO_MESSAGE =
  "Production code uses only the demo's public exports: @allocation-lens/demo-cluster (launcher, control client, DemoInfo, Truth), @allocation-lens/demo-cluster/launcher, @allocation-lens/demo-cluster/faults, @allocation-lens/demo-cluster/real-ta-build and @allocation-lens/demo-cluster/kube-real-build.";
const DEMO_INTERNALS = [
  rule("^@allocation-lens/demo-cluster/(?!(faults|launcher|real-ta-build|kube-real-build)$)", DEMO_MESSAGE),
  rule("^@/packages(/|$)", DEMO_MESSAGE),
  rule("^(\\.\\./)+packages(/|$)", DEMO_MESSAGE),
];
/** The browser gets the fault contract only: the package's main entry spawns processes. */
const DEMO_FROM_BROWSER = [
  rule("^@allocation-lens/demo-cluster(?!/faults$)", "components/ import only @allocation-lens/demo-cluster/faults from the demo (its main entry is Node code)."),
];
/** Test code (the test folders, fixtures, harnesses, the general helpers in test-support/, the tests) is for tests only. */
const TEST_SUPPORT_MESSAGE =
  "Product code imports no test code (test/, packages/*/test/, test-support/, e2e/, *.test.ts): move what both need into the product, or the import into a test.";
const TEST_SUPPORT = [
  rule("(^|/)(test-[^/]*|[^/]*\\.(test|spec)(\\.[cm]?[jt]sx?)?)$", TEST_SUPPORT_MESSAGE),
  // a test folder in a path of ours (not a package's name such as @playwright/test)
  rule("^(@/|\\.\\.?/|@allocation-lens/[^/]+/)(.*/)?(test|acceptance|e2e)(/|$)", TEST_SUPPORT_MESSAGE),
  rule("(^|/)test-support(/|$)", TEST_SUPPORT_MESSAGE),
];
/**
 * A workspace package is a program of its own: it imports nothing from the dashboard (no `@/` alias, no path into the
 * repository's folders), only its own modules and its declared dependencies.
 */
const PACKAGE_MESSAGE = "A package imports nothing from the dashboard (`@/`, lib/, server/, components/, app/): only its own modules and its declared dependencies.";
const PACKAGE_SELF_CONTAINED = [
  rule("^@/", PACKAGE_MESSAGE),
  rule("^(\\.\\./)+(lib|server|components|app|scripts|e2e|allocation|demo-cluster|packages)(/|$)", PACKAGE_MESSAGE),
];
/** The allocation rules are shared by the demo and the dashboard: they depend on neither. */
const ALLOCATION_LAYER = [rule("^@allocation-lens/(demo-cluster|test-support)(/|$)", "packages/allocation depends on neither the demo nor test support.")];

/** `import("x")` is not seen by no-restricted-imports: the same patterns as no-restricted-syntax selectors. */
const dynamicImports = (rules) =>
  rules.map((r) => ({
    // esquery's regex literal ends at the first "/", so slashes in the pattern are written \u002F
    selector: `ImportExpression[source.value=/${r.regex.replaceAll("/", "\\u002F")}/]`,
    message: r.message,
  }));

const restrict = (name, files, ignores, rules) => ({
  name: `allocation-lens/boundaries/${name}`,
  files,
  ignores,
  rules: {
    "no-restricted-imports": ["error", { patterns: rules }],
    "no-restricted-syntax": ["error", ...dynamicImports(rules)],
  },
});

const testsUnder = (dir) => TESTS.filter((g) => g.startsWith("**")).map((g) => `${dir}/${g}`);

const boundaries = [
  // lib/: tests and production logic
  restrict("lib-tests", testsUnder("lib"), [], LIB_LAYER),
  restrict("lib", ["lib/" + SRC], TESTS, [...LIB_LAYER, ...DEMO_INTERNALS, ...DEMO_FROM_BROWSER, ...TEST_SUPPORT]),
  // components/
  restrict("components-tests", testsUnder("components"), [], COMPONENTS_LAYER),
  restrict("components", ["components/" + SRC], TESTS, [...COMPONENTS_LAYER, ...DEMO_INTERNALS, ...DEMO_FROM_BROWSER, ...TEST_SUPPORT]),
  // the rest of production code: server/, app/, the root modules (proxy.ts, instrumentation.ts)
  restrict("server", ["server/" + SRC], TESTS, [...DEMO_INTERNALS, ...TEST_SUPPORT]),
  restrict("app-and-root", ["app/" + SRC, "proxy.ts", "instrumentation.ts"], TESTS, [...DEMO_INTERNALS, ...TEST_SUPPORT]),
  // the packages: self-contained; the allocation rules depend on nothing of the demo; no test support outside their tests
  restrict("allocation-tests", testsUnder("packages/allocation"), [], [...PACKAGE_SELF_CONTAINED, ...ALLOCATION_LAYER]),
  restrict("allocation", ["packages/allocation/" + SRC], TESTS, [...PACKAGE_SELF_CONTAINED, ...ALLOCATION_LAYER, ...TEST_SUPPORT]),
  restrict("demo-tests", [...testsUnder("packages/demo-cluster"), "packages/demo-cluster/test/**"], [], PACKAGE_SELF_CONTAINED),
  restrict("demo", ["packages/demo-cluster/" + SRC], TESTS, [...PACKAGE_SELF_CONTAINED, ...TEST_SUPPORT]),
  restrict("test-support", ["test-support/" + SRC], [], PACKAGE_SELF_CONTAINED),
  // scripts: production scripts get no test support; the bench and the attack suite may use it; neither reaches the demo's internals
  restrict("scripts", ["scripts/" + SRC], [...TESTS, ...TOOLS], [...DEMO_INTERNALS, ...TEST_SUPPORT]),
  restrict("test-tools", TOOLS, [], DEMO_INTERNALS),
];

/**
 * No import circle (docs/ARCHITECTURE.md, "Boundaries"): a module that is imported, directly or through others, by what it
 * imports is an initialisation-order bug waiting to happen and a sign that a shared piece sits in the wrong module. The rule
 * is eslint-plugin-import's, which eslint-config-next registers with the TypeScript resolver (the `@/` alias and the
 * workspace packages resolve to their files). It follows value imports: `import type` is erased at build time, and the rule
 * cannot be made to follow it.
 */
const noCycle = {
  name: "allocation-lens/no-cycle",
  files: [SRC],
  rules: { "import/no-cycle": ["error", { ignoreExternal: true }] },
};

const config = [
  ...next,
  ...nextTs,
  ...boundaries,
  noCycle,
  { ignores: [".next/**", "node_modules/**", "test-results/**", "playwright-report/**", "artifacts/**", "next-env.d.ts"] },
];
export default config;

import next from "eslint-config-next/core-web-vitals";
import nextTs from "eslint-config-next/typescript";

// Module boundaries (docs/ARCHITECTURE.md, "Boundaries"). ESLint's own no-restricted-imports matches the import string as
// written, so each rule names the `@/` alias form and the relative form that climbs into the forbidden folder. It checks
// static imports and re-exports (type-only ones too); dynamic `import("...")` is covered by the no-restricted-syntax twin.
//
// Flat config replaces a rule's options rather than merging them, so the file groups below are disjoint and each gets
// every restriction that applies to it.

const SRC = "**/*.{ts,tsx,mts,cts,js,mjs,jsx}";
const TESTS = ["**/*.test.{ts,tsx}", "**/*.spec.{ts,tsx}", "e2e/**", "server/acceptance/**", "server/demo/acceptance/**", "**/test-*.ts"];
const DEMO = ["server/demo/**", "lib/world/**"];

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
/** The demo is a separate program: production code only starts it (server/demo-launcher.ts spawns server/demo/main.ts)
 * and shares its fault contract (lib/demo/faults.ts). */
const DEMO_MESSAGE =
  "Production code imports nothing from the demo (server/demo/**, lib/world/**): start it through server/demo-launcher.ts, talk to it through server/demo-control.ts and lib/demo/faults.ts.";
const DEMO_ALIAS = [
  rule("^@/(server/demo|lib/world)(/|$)", DEMO_MESSAGE),
  rule("^@/lib/demo/(?!faults$)", DEMO_MESSAGE),
  rule("^(\\.\\./)+(server/demo|lib/world)(/|$)", DEMO_MESSAGE),
];
/** relative forms as seen from inside lib/ (../world is lib/world) and inside server/ (./demo, ../demo is server/demo) */
const DEMO_FROM_LIB = [rule("^(\\.\\.?/)+world(/|$)", DEMO_MESSAGE), rule("^(\\.\\.?/)+demo/(?!faults$)", DEMO_MESSAGE)];
const DEMO_FROM_SERVER = [rule("^(\\.\\.?/)+demo(/|$)", DEMO_MESSAGE)];
/** Test support (fixtures, harnesses, shared test bodies) is for tests only. */
const TEST_SUPPORT = [
  rule(
    "(^|/)(test-[^/]*|[^/]*\\.(test|spec)(\\.[cm]?[jt]sx?)?)$|(^|/)(acceptance|e2e)(/|$)",
    "Only tests import test support (test-*.ts, *.test.ts, server/acceptance/**, server/demo/acceptance/**, e2e/**).",
  ),
];

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

const boundaries = [
  // lib/: tests, the demo's world, and production logic
  restrict("lib-tests", TESTS.filter((g) => g.startsWith("**")).map((g) => `lib/${g}`), [], LIB_LAYER),
  restrict("lib-world", ["lib/world/" + SRC], TESTS, [...LIB_LAYER, ...TEST_SUPPORT]),
  restrict("lib", ["lib/" + SRC], [...TESTS, ...DEMO], [...LIB_LAYER, ...DEMO_ALIAS, ...DEMO_FROM_LIB, ...TEST_SUPPORT]),
  // components/
  restrict("components-tests", TESTS.filter((g) => g.startsWith("**")).map((g) => `components/${g}`), [], COMPONENTS_LAYER),
  restrict("components", ["components/" + SRC], TESTS, [...COMPONENTS_LAYER, ...DEMO_ALIAS, ...TEST_SUPPORT]),
  // the rest of production code: server/ (outside the demo), app/, the root modules (proxy.ts, instrumentation.ts)
  restrict("server", ["server/" + SRC], [...TESTS, ...DEMO], [...DEMO_ALIAS, ...DEMO_FROM_SERVER, ...TEST_SUPPORT]),
  restrict("app-and-root", ["app/" + SRC, "proxy.ts", "instrumentation.ts"], TESTS, [...DEMO_ALIAS, ...TEST_SUPPORT]),
  // the demo itself and the scripts: no test support either
  restrict("demo-and-scripts", ["server/demo/" + SRC, "scripts/" + SRC], TESTS, TEST_SUPPORT),
];

const config = [
  ...next,
  ...nextTs,
  ...boundaries,
  { ignores: [".next/**", "node_modules/**", "test-results/**", "playwright-report/**", "artifacts/**", "next-env.d.ts"] },
];
export default config;

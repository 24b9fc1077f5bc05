/**
 * The module boundaries of eslint.config.mjs (docs/ARCHITECTURE.md, "Boundaries") fail on a forbidden import and pass the
 * allowed ones, and an import circle fails (import/no-cycle): each case lints one import as if it were written in a file at
 * `file`.
 */
import path from "node:path";
import { ESLint } from "eslint";
import { beforeAll, describe, expect, it } from "vitest";

const ROOT = path.resolve(import.meta.dirname, "..");
let eslint: ESLint;
let withCycles: ESLint;

async function errors(file: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: path.join(ROOT, file) });
  return result.messages.filter((m) => m.ruleId === "no-restricted-imports" || m.ruleId === "no-restricted-syntax").map((m) => m.message);
}

/**
 * import/no-cycle's findings for `code` as the content of `file`. The configured rule first computes the circles of the
 * files on disk and checks only imports within one, so it cannot see a circle that exists only in `code`: `withCycles`
 * runs it with that shortcut off (disableScc).
 */
async function cycles(file: string, code: string): Promise<string[]> {
  const [result] = await withCycles.lintText(code, { filePath: path.join(ROOT, file) });
  return result.messages.filter((m) => m.ruleId === "import/no-cycle").map((m) => m.message);
}

const uses = (spec: string) => `import * as m from "${spec}";\nexport const x = m;\n`;
const usesLater = (spec: string) => `export const x = () => import("${spec}");\n`;

beforeAll(() => {
  // import/no-cycle cannot lint a file that does not exist (the made-up paths below): the boundaries are checked without it
  eslint = new ESLint({ cwd: ROOT, overrideConfig: { rules: { "import/no-cycle": "off" } } });
  withCycles = new ESLint({ cwd: ROOT, overrideConfig: { rules: { "import/no-cycle": ["error", { ignoreExternal: true, disableScc: true }] } } });
});

describe("module boundaries", () => {
  const forbidden: [string, string, RegExp][] = [
    ["server/x.ts", "@allocation-lens/demo-cluster/internal/store", /public exports/],
    ["server/x.ts", "@allocation-lens/demo-cluster/test/acceptance/harness", /public exports|no test code/],
    ["server/x.ts", "@allocation-lens/demo-cluster/test/fixtures/kube", /public exports|no test code/],
    ["server/x.ts", "@/test/fixtures/kube", /no test code/],
    ["server/kube/x.ts", "../../test/acceptance/support", /no test code/],
    ["app/x.ts", "@/test/acceptance/support", /no test code/],
    ["lib/x.ts", "@/test/fixtures/rows", /no test code/],
    ["components/x.tsx", "@/test/fixtures/rows", /no test code/],
    ["lib/views/x.ts", "./lost.test", /no test code/],
    ["packages/demo-cluster/src/x.ts", "../test/fixtures/kube", /no test code/],
    ["packages/allocation/src/x.ts", "../test/x", /no test code/],
    ["app/x.ts", "../packages/demo-cluster/src/store", /public exports/],
    ["server/x.ts", "@allocation-lens/test-support/wait", /no test code/],
    ["lib/x.ts", "@/server/runtime", /lib\/ is pure/],
    ["components/x.tsx", "@allocation-lens/demo-cluster", /only @allocation-lens\/demo-cluster\/faults/],
    ["components/x.tsx", "@/server/api", /components\/ import nothing from server/],
    ["packages/demo-cluster/src/x.ts", "@/server/runtime", /imports nothing from the dashboard/],
    ["packages/demo-cluster/src/x.ts", "../../../lib/views/targets", /imports nothing from the dashboard/],
    ["packages/demo-cluster/src/x.ts", "@allocation-lens/test-support/ports", /no test code/],
    ["packages/allocation/src/x.ts", "@allocation-lens/demo-cluster/faults", /depends on neither/],
    ["scripts/start.mjs", "@allocation-lens/test-support/ports", /no test code/],
  ];
  it.each(forbidden)("%s may not import %s", async (file, spec, message) => {
    const found = await errors(file, uses(spec));
    expect(found.length, `${file} importing ${spec}`).toBeGreaterThan(0);
    expect(found.join("\n")).toMatch(message);
    expect((await errors(file, usesLater(spec))).length, `${file} importing ${spec} dynamically`).toBeGreaterThan(0);
  });

  const allowed: [string, string][] = [
    ["server/x.ts", "@allocation-lens/demo-cluster"],
    ["server/x.ts", "@allocation-lens/demo-cluster/launcher"],
    ["app/x.ts", "@allocation-lens/demo-cluster/faults"],
    ["components/x.tsx", "@allocation-lens/demo-cluster/faults"],
    ["lib/x.ts", "@allocation-lens/allocation/strategies"],
    ["packages/demo-cluster/src/x.ts", "@allocation-lens/allocation/model"],
    ["packages/demo-cluster/test/acceptance/x.test.ts", "@allocation-lens/test-support/wait"],
    ["packages/demo-cluster/src/x.test.ts", "../test/fixtures/kube"],
    ["test/acceptance/x.test.ts", "@/test/fixtures/kube"],
    ["test/fixtures/x.ts", "@allocation-lens/demo-cluster/test/fixtures/kube"],
    ["lib/views/x.test.ts", "@/test/fixtures/rows"],
    ["scripts/screenshot.mjs", "@playwright/test"],
    ["server/x.test.ts", "@allocation-lens/demo-cluster/internal/store"],
    ["scripts/bench.mts", "@allocation-lens/test-support/ports"],
  ];
  it.each(allowed)("%s may import %s", async (file, spec) => {
    expect(await errors(file, uses(spec))).toEqual([]);
  });

  it.each(["lib/api/schemas.ts", "server/poll/answers.ts", "components/data/queries.ts", "app/layout.tsx", "packages/demo-cluster/src/kube/routes.ts", "scripts/test.mjs", "test/acceptance/support.ts"])(
    "lint forbids import circles in %s",
    async (file) => {
      const config = await new ESLint({ cwd: ROOT }).calculateConfigForFile(path.join(ROOT, file));
      expect(config.rules["import/no-cycle"]?.[0]).toBe(2);
    },
  );

  it("an import circle fails, value imports and re-exports alike", async () => {
    // lib/snapshot.ts imports lib/api/schemas.ts: schemas importing the snapshot module back closes a circle
    expect(await cycles("lib/api/schemas.ts", `import { SOURCE_STATES } from "@/lib/snapshot";\nexport const x = SOURCE_STATES;\n`)).toEqual(["Dependency cycle detected."]);
    expect(await cycles("lib/api/schemas.ts", `export { SOURCE_STATES as X } from "@/lib/snapshot";\n`)).toEqual(["Dependency cycle detected."]);
    // the same import from a module the snapshot does not reach is no circle
    expect(await cycles("lib/api/routes.ts", `import { SOURCE_STATES } from "@/lib/snapshot";\nexport const x = SOURCE_STATES;\n`)).toEqual([]);
  });
});

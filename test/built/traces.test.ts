/**
 * `next build` traces the files each route needs (its .nft.json), and the standalone output (the container image) is
 * made of them. A path the build can compute (`path.resolve(".data")` in server code) makes it trace the whole working
 * tree: the image then holds the sources, README and artifacts, and takes itself for a source tree. No trace may name
 * the repository's own top-level files.
 *
 * Needs the build (skipped with a warning without it, a failure under CI).
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { BUILT, ENTRY, ROOT } from "./replica-process";

const SERVER = path.join(path.dirname(ENTRY), "server");
const SOURCE_TREE = ["package-lock.json", "tsconfig.json", "CHANGELOG.md", "README.md"];

describe.skipIf(!BUILT)("the build's file traces", () => {
  it("name no file of the source tree's top level", () => {
    const traces = (fs.readdirSync(SERVER, { recursive: true }) as string[]).filter((f) => f.endsWith(".nft.json"));
    expect(traces.length).toBeGreaterThan(10);
    const offending = traces.flatMap((t) => {
      const dir = path.dirname(path.join(SERVER, t));
      const files = (JSON.parse(fs.readFileSync(path.join(SERVER, t), "utf8")) as { files: string[] }).files;
      return files.filter((f) => SOURCE_TREE.includes(path.relative(ROOT, path.resolve(dir, f)))).map((f) => `${t}: ${f}`);
    });
    expect(offending.slice(0, 5)).toEqual([]);
  });
});

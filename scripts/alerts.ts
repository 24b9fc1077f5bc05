/**
 * `npm run alerts`: writes the rule files generated from lib/alerts/rules.ts (lib/alerts/files.ts): the plain rules file,
 * the kustomize component and the Helm chart's PrometheusRule. `--check` writes nothing and exits 1 naming the files that
 * are out of date (lib/alerts/files.test.ts does the same in the tests).
 */
import fs from "node:fs";
import path from "node:path";
import { generatedFiles } from "../lib/alerts/files";

const root = path.resolve(import.meta.dirname, "..");
const check = process.argv.includes("--check");
const stale: string[] = [];
for (const [file, text] of Object.entries(generatedFiles())) {
  const abs = path.join(root, file);
  const now = fs.existsSync(abs) ? fs.readFileSync(abs, "utf8") : null;
  if (now === text) continue;
  stale.push(file);
  if (!check) {
    fs.mkdirSync(path.dirname(abs), { recursive: true });
    fs.writeFileSync(abs, text);
    console.log(`wrote ${file}`);
  }
}
if (check && stale.length) {
  console.error(`out of date (run \`npm run alerts\`): ${stale.join(", ")}`);
  process.exit(1);
}
if (!stale.length) console.log("the rule files are up to date");

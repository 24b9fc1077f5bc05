import "server-only";
/**
 * Loads the configuration: the file named by ALLOCATION_LENS_CONFIG (or --config), validated; with none, the embedded
 * demo cluster is started and its generated configuration used. A bad file is an error naming each bad field, never
 * showing a credential (lib/config/schema.ts: shownValue, yamlErrorLine).
 */
import fs from "node:fs";
import YAML from "yaml";
import { parseConfig, yamlErrorLine, type Config } from "@/lib/config/schema";

/** Said when there is no configuration and no source tree to run the embedded demo from (the container image). */
export const NO_CONFIGURATION = "no configuration: set ALLOCATION_LENS_CONFIG; the embedded demo needs the source tree (npm start)";

export class ConfigError extends Error {
  constructor(
    readonly file: string,
    readonly problems: string[],
  ) {
    super(`invalid configuration ${file}:\n${problems.map((p) => `  - ${p}`).join("\n")}`);
    this.name = "ConfigError";
  }
}

export function configPathFromEnv(argv = process.argv, env = process.env): string | undefined {
  const i = argv.indexOf("--config");
  if (i >= 0 && argv[i + 1]) return argv[i + 1];
  const eq = argv.find((a) => a.startsWith("--config="));
  if (eq) return eq.slice("--config=".length);
  return env.ALLOCATION_LENS_CONFIG || undefined;
}

export function loadConfigFile(file: string): Config {
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch (e) {
    throw new ConfigError(file, [`cannot read the file: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`]);
  }
  let data: unknown;
  try {
    const doc = YAML.parseDocument(text, { prettyErrors: true });
    if (doc.errors.length) throw new ConfigError(file, doc.errors.map((e) => yamlErrorLine(e.message)));
    data = doc.toJS();
  } catch (e) {
    if (e instanceof ConfigError) throw e;
    throw new ConfigError(file, [yamlErrorLine((e as Error)?.message ?? String(e))]);
  }
  const result = parseConfig(data ?? {});
  if (!result.ok) throw new ConfigError(file, result.errors);
  return result.config;
}

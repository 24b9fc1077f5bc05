import "server-only";
/**
 * Loads the configuration: the file named by ALLOCATION_LENS_CONFIG (or --config), validated; with none, the embedded
 * demo cluster is started and its generated configuration used. A bad file is an error naming each bad field, never
 * showing a credential (lib/config/schema.ts: shownValue, yamlErrorLine).
 */
import fs from "node:fs";
import path from "node:path";
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

/** A cluster name (a DNS label) from a kubeconfig context name: `arn:aws:eks:eu-west-1:1234:cluster/prod` -> `prod`. */
export function clusterNameFromContext(context: string): string {
  const last = context.split("/").pop() ?? context;
  const name = last
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 63)
    .replace(/-+$/, "");
  return name || "cluster";
}

const DATA_DIR = ".data";

/**
 * `npm start -- --kubeconfig FILE [--context NAME]`: a configuration of one cluster whose TAs are discovered, written as
 * `discovered-<cluster>.yaml` into `dir` (default `.data`, where the churn history's default file is too, so that the
 * history carries over to the next start). Only paths and names go in it, never a credential; it is rewritten at every
 * start.
 */
export function writeDiscoveryConfig(opts: { kubeconfig?: string; context?: string; contextName: string; dir?: string }, cwd = process.cwd()): string {
  // resolved against a parameter, not the process' own directory: `next build` traces a path it can compute at build time
  // (path.resolve of a literal) and would copy the whole working tree into the standalone output
  const dir = path.resolve(cwd, opts.dir ?? DATA_DIR);
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const name = clusterNameFromContext(opts.contextName);
  const file = path.join(dir, `discovered-${name}.yaml`);
  const kubernetes: Record<string, string> = {};
  if (opts.kubeconfig) kubernetes.kubeconfig = opts.kubeconfig;
  if (opts.context) kubernetes.context = opts.context;
  const config = { clusters: [{ name, kubernetes, targetAllocators: "auto" }] };
  fs.writeFileSync(file, YAML.stringify(config), { mode: 0o600 });
  fs.chmodSync(file, 0o600); // an older file keeps its mode otherwise
  return file;
}

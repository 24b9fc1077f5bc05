/**
 * What the server entry checks before it starts Next.js, so that a server that must not run never binds its port: the
 * configuration parses, the embedded demo can run here, the server would not serve anonymously beyond loopback without
 * saying so (lib/auth/exposure.ts), the token file holds only usable tokens. It also settles the listen address, demo mode
 * and the inbound limits.
 */
import { anonymousExposure } from "@/lib/auth/exposure";
import type { Config } from "@/lib/config/schema";
import { DEFAULT_INBOUND_LIMITS, type InboundLimits } from "@/lib/inbound/limits";
import { hasSourceTree } from "@allocation-lens/demo-cluster/launcher";
import { ConfigError, configPathFromEnv, loadConfigFile, NO_CONFIGURATION } from "@/server/config";
import { readTokenFile, tokenFileProblems } from "@/server/tokens";

export interface Settings {
  host: string;
  port: number;
  configFile: string | undefined;
  config: Config | undefined;
  demo: boolean;
  limits: InboundLimits;
}

/** The listen address when HOSTNAME is not set: loopback. The container image sets HOSTNAME=0.0.0.0. */
export const DEFAULT_HOST = "127.0.0.1";

export function preflight(env: NodeJS.ProcessEnv = process.env, argv: string[] = process.argv, cwd = process.cwd()): { ok: true; settings: Settings } | { ok: false; message: string } {
  const port = env.PORT ? Number(env.PORT) : 3000;
  if (!Number.isInteger(port) || port < 0 || port > 65535) return { ok: false, message: `allocation-lens: PORT must be a port number (0-65535), got ${JSON.stringify(env.PORT)}` };
  const host = env.HOSTNAME?.trim() || DEFAULT_HOST;
  const configFile = configPathFromEnv(argv, env);
  let config: Config | undefined;
  if (configFile) {
    try {
      config = loadConfigFile(configFile);
    } catch (e) {
      return { ok: false, message: e instanceof ConfigError ? e.message : `allocation-lens: cannot start: ${(e as Error).message}` };
    }
  } else if (!hasSourceTree(cwd)) {
    return { ok: false, message: `allocation-lens: cannot start: ${NO_CONFIGURATION}` };
  }
  const auth = config?.auth;
  const exposed = anonymousExposure({ host, port, configFile, mode: auth?.mode ?? "none", allowAnonymous: auth?.allowAnonymous ?? false });
  if (exposed) return { ok: false, message: exposed };
  if (auth?.mode === "token" && auth.tokenFile) {
    let problems: string[] = [];
    try {
      problems = tokenFileProblems(auth.tokenFile, readTokenFile(auth.tokenFile));
    } catch {
      // unreadable now (a Secret not mounted yet): every request is refused with 503 until it can be read, and logged then
    }
    if (problems.length) return { ok: false, message: problems.join("\n") };
  }
  return { ok: true, settings: { host, port, configFile, config, demo: !configFile || Boolean(config?.demo), limits: config?.server ?? { ...DEFAULT_INBOUND_LIMITS } } };
}

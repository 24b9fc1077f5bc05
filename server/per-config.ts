import "server-only";
/**
 * One instance per configuration, kept on globalThis under `symbol` (route bundles share it, as they share the runtime):
 * the same configuration gets the same instance; a different one closes the old instance and creates a new one.
 */
export function perConfig<C, T>(symbol: symbol, config: C, create: (config: C) => T, close: (instance: T) => void): T {
  const holder = globalThis as { [k: symbol]: { key: string; instance: T } | undefined };
  const key = JSON.stringify(config);
  const held = holder[symbol];
  if (held?.key === key) return held.instance;
  if (held) close(held.instance);
  const instance = create(config);
  holder[symbol] = { key, instance };
  return instance;
}

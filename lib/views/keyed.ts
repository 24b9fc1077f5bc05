/**
 * Stable, unique React keys for lists of plain values, from a natural key: repeats (two events in the same millisecond,
 * two equal evidence lines) get "#2", "#3"...
 */
export function keyed<T>(items: readonly T[], keyOf: (item: T) => string): { key: string; item: T }[] {
  const seen = new Map<string, number>();
  return items.map((item) => {
    const k = keyOf(item);
    const n = (seen.get(k) ?? 0) + 1;
    seen.set(k, n);
    return { key: n === 1 ? k : `${k}#${n}`, item };
  });
}

/**
 * A target's stable key: cyrb53 over its job, the digest of its sorted label names, and its label values in that order.
 * Equal for equal (job, labels) whatever the object's key order. The discovery caches the key order per label shape, so
 * 150,000 targets cost neither a sort nor hashing their (long, repeated) label names each.
 */
import type { Labels } from "@allocation-lens/allocation/model";
import { Hasher, hashHex } from "./hash";

export interface KeyOrder {
  /** label names, sorted */
  keys: readonly string[];
  /** cyrb53 of the names */
  digest: string;
}

const byCodeUnit = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

export function keyOrder(names: Iterable<string>): KeyOrder {
  const keys = [...new Set(names)].sort(byCodeUnit);
  return { keys, digest: hashHex(keys.join("\u0001")) };
}

/** The key of (job, labels) when `order` lists exactly the names of `labels`. */
export function keyWithOrder(job: string, labels: Labels, order: KeyOrder): string {
  const h = new Hasher().add(job).add(order.digest);
  for (const k of order.keys) h.add(labels[k]);
  return h.hex();
}

/**
 * The same key from the label values in insertion order: `perm[i]` is the insertion index of the i-th sorted name
 * (no keyed property loads on the hot path).
 */
export function keyWithPermutation(job: string, values: readonly string[], order: KeyOrder, perm: readonly number[]): string {
  const h = new Hasher().add(job).add(order.digest);
  for (let i = 0; i < perm.length; i++) h.add(values[perm[i]]);
  return h.hex();
}

export function targetKey(job: string, labels: Labels): string {
  return keyWithOrder(job, labels, keyOrder(Object.keys(labels)));
}

/**
 * A target's identity as a real TA keys it: the job and the labels its relabel_configs leave, less every `__meta_*` one.
 * The real allocator keeps a target, with the labels it was first discovered with, for as long as that identity stays:
 * a change of `__meta_*` labels alone (an endpoint turning terminating, a pod's readiness) does not reach its answers.
 * Relabeling here covers the actions the demo's configs use (replace, keep, drop, labelmap, labeldrop, labelkeep), with
 * Prometheus's defaults and anchored regular expressions.
 */
import type { Labels } from "@allocation-lens/allocation/model";

export interface RelabelConfig {
  source_labels?: string[];
  separator?: string;
  regex?: string;
  target_label?: string;
  replacement?: string;
  action?: string;
}

const compiled = new Map<string, RegExp>();
function anchored(regex: string | undefined): RegExp {
  const source = regex ?? "(.*)";
  let re = compiled.get(source);
  if (!re) compiled.set(source, (re = new RegExp(`^(?:${source})$`, "s")));
  return re;
}

/** `$1`, `${1}` and `${name}` of a Go regexp template, from a match (a missing group expands to nothing). */
function expand(template: string, m: RegExpExecArray): string {
  return template.replace(/\$(?:\{(\w+)\}|(\d+))/g, (_, braced: string | undefined, digits: string | undefined) => {
    const ref = braced ?? digits!;
    const v = /^\d+$/.test(ref) ? m[Number(ref)] : m.groups?.[ref];
    return v ?? "";
  });
}

/** The labels after `configs`, or null when a keep or drop action drops the target. */
export function relabel(labels: Labels, configs: readonly RelabelConfig[]): Labels | null {
  const out: Labels = { ...labels };
  for (const c of configs) {
    const action = c.action ?? "replace";
    const re = anchored(c.regex);
    const value = (c.source_labels ?? []).map((n) => out[n] ?? "").join(c.separator ?? ";");
    switch (action) {
      case "replace": {
        const m = re.exec(value);
        if (!m || c.target_label === undefined) break;
        const target = expand(c.target_label, m);
        const v = expand(c.replacement ?? "$1", m);
        if (v === "") delete out[target];
        else out[target] = v;
        break;
      }
      case "keep":
        if (!re.test(value)) return null;
        break;
      case "drop":
        if (re.test(value)) return null;
        break;
      case "labelmap":
        for (const name of Object.keys(out)) {
          const m = re.exec(name);
          if (m) out[expand(c.replacement ?? "$1", m)] = out[name];
        }
        break;
      case "labeldrop":
        for (const name of Object.keys(out)) if (re.test(name)) delete out[name];
        break;
      case "labelkeep":
        for (const name of Object.keys(out)) if (!re.test(name)) delete out[name];
        break;
    }
  }
  return out;
}

/** The identity of a target of `job`: its relabeled labels without `__meta_*`, sorted. */
export function targetIdentity(job: string, labels: Labels, configs: readonly RelabelConfig[]): string {
  const relabeled = relabel(labels, configs) ?? labels;
  const kept = Object.keys(relabeled)
    .filter((n) => !n.startsWith("__meta_"))
    .sort();
  return JSON.stringify([job, ...kept.map((n) => [n, relabeled[n]])]);
}

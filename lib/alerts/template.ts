/**
 * The few forms of Prometheus' alert templates (Go text/template) that the rules' annotations use, rendered the way
 * Prometheus renders them, so that the Alerts view shows the same summary, description and links as the alert:
 *
 *   {{ $labels.NAME }}   {{ $labels.NAME | urlquery }}   {{ $value }}   {{ $value | humanizePercentage }}
 *
 * Anything else is refused (render() throws), so a rule cannot use a form this module would render differently. The
 * promtool unit tests hold the two to each other: their expected annotations are rendered here (lib/alerts/promtool.test.ts).
 * Pure.
 */

const ACTION = /\{\{\s*(\$labels\.([a-zA-Z_][a-zA-Z0-9_]*)|\$value)\s*(?:\|\s*(urlquery|humanizePercentage)\s*)?\}\}/g;

/** Go's `%v` of a float64 (strconv 'g', shortest): 20, 0.25, 1.5e+06, 1e-05, NaN, +Inf. */
export function goFloat(v: number): string {
  if (Number.isNaN(v)) return "NaN";
  if (v === Infinity) return "+Inf";
  if (v === -Infinity) return "-Inf";
  if (v === 0) return Object.is(v, -0) ? "-0" : "0";
  const [mantissa, exp] = v.toExponential().split("e");
  const e = Number(exp);
  if (e < -4 || e >= 21 || (e >= 6 && e < 21)) return `${mantissa}e${e < 0 ? "-" : "+"}${String(Math.abs(e)).padStart(2, "0")}`;
  return String(v);
}

/** Go's `%.4g` (humanizePercentage: the value times 100, then `%`). */
function goG4(v: number): string {
  if (!Number.isFinite(v)) return goFloat(v);
  if (v === 0) return "0";
  const [m, exp] = v.toExponential(3).split("e");
  const e = Number(exp);
  const trim = (s: string) => (s.includes(".") ? s.replace(/0+$/, "").replace(/\.$/, "") : s);
  if (e < -4 || e >= 4) return `${trim(m)}e${e < 0 ? "-" : "+"}${String(Math.abs(e)).padStart(2, "0")}`;
  return trim(v.toFixed(Math.max(0, 3 - e)));
}

/** Go's url.QueryEscape (urlquery): spaces as `+`, everything but letters, digits and `-_.~` escaped. */
function queryEscape(s: string): string {
  return encodeURIComponent(s)
    .replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
    .replace(/%20/g, "+");
}

/** Every `{{ ... }}` of `text` is one of the supported forms. */
export function unsupportedActions(text: string): string[] {
  const all = text.match(/\{\{.*?\}\}/g) ?? [];
  return all.filter((a) => !new RegExp(`^${ACTION.source}$`).test(a));
}

/** The text as Prometheus renders it for an alert with these labels and value. Throws on a form it does not support. */
export function render(text: string, labels: Readonly<Record<string, string>>, value: number): string {
  const bad = unsupportedActions(text);
  if (bad.length) throw new Error(`unsupported template action ${bad[0]}`);
  return text.replace(ACTION, (_all, _what: string, label: string | undefined, fn: string | undefined) => {
    if (label !== undefined) {
      // a missing label renders as Go renders a missing map key of map[string]string: empty
      const v = labels[label] ?? "";
      return fn === "urlquery" ? queryEscape(v) : v;
    }
    if (fn === "humanizePercentage") return `${goG4(value * 100)}%`;
    if (fn === "urlquery") return queryEscape(goFloat(value));
    return goFloat(value);
  });
}

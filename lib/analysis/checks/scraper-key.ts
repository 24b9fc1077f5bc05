/**
 * Which spelling of the scraper annotation the cluster's monitors carry, and which one its TAs read (docs/target-allocator.md,
 * "Scraper roles"). A TA reads exactly one key: the merged build `cloudwatch.aws.amazon.com/scraper`, the earlier build
 * `cloudwatch.aws/scraper`. What a TA reads is inferred from what it holds: a monitor whose only cluster-scraper value sits
 * under key k is held by the cluster-scraper TA and dropped by the per-node TA exactly when they read k.
 */
import type { Role } from "@/lib/model";
import type { MonitorRow } from "@/lib/analysis/types";
import { CLUSTER_SCRAPER_VALUE, DEFAULT_SCRAPER_ANNOTATION, EARLIER_SCRAPER_ANNOTATION } from "@/lib/routing";
import type { Check, CheckStatus, Ctx } from "./context";
import { describeScraperKeys, goneKinds, monitorName } from "./monitors";
import { mk, notYet, plural } from "./util";

const base = { id: "scraper-annotation-key" as const, title: "Scraper annotation key", view: "/ownership" };

const has = (m: MonitorRow, k: string) => Object.prototype.hasOwnProperty.call(m.annotations, k);
const orList = (items: readonly string[]) => (items.length < 2 ? items.join("") : `${items.slice(0, -1).join(", ")} or ${items.at(-1)}`);

/** `3 monitors ("cluster-scraper" 2, "per-node" 1)`: how many monitors carry the key, by value. */
function countsOf(c: Ctx, carrying: readonly MonitorRow[], k: string): string {
  const byValue = new Map<string, number>();
  for (const m of carrying) byValue.set(m.annotations[k], (byValue.get(m.annotations[k]) ?? 0) + 1);
  const values = [...byValue].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).map(([v, n]) => `${JSON.stringify(v)} ${n}`);
  const recognised = c.scraperKeys.includes(k) ? "" : `; not recognised: scraperAnnotation is ${c.scraperKeys[0]}`;
  return `${k}: ${plural(carrying.length, "monitor")} (${values.join(", ")})${recognised}`;
}

/** "all 3 monitors", "both monitors", "none of the 2 monitors", "the monitor", "no monitor", "1 of the 4 monitors": how many of `n` a TA holds. */
function share(held: number, n: number): string {
  if (n === 1) return held ? "the monitor" : "no monitor";
  if (n === 2 && held === 2) return "both monitors";
  return held === n ? `all ${n} monitors` : held === 0 ? `none of the ${n} monitors` : `${held} of the ${n} monitors`;
}

interface Reading {
  role: Role;
  /** the key the TA reads, when one key explains everything it holds */
  reads: string | null;
  sentence: string;
}

/**
 * What one TA does with the monitors whose only cluster-scraper value is under each key: the cluster-scraper TA reads a key
 * when it holds all of them, the per-node TA when it holds none (it drops them).
 */
function reading(role: Role, telling: readonly { key: string; monitors: readonly MonitorRow[] }[]): Reading {
  // what it holds first: "holds all 3 ... and none of the 2 ..."
  const parts = telling
    .map(({ key, monitors }) => ({ key, held: monitors.filter((m) => m.holders.includes(role)).length, n: monitors.length }))
    .sort((a, b) => Number(b.held > 0) - Number(a.held > 0));
  const readsKey = (p: (typeof parts)[number]) => (role === "cluster-scraper" ? p.held === p.n : p.held === 0);
  const ignoresKey = (p: (typeof parts)[number]) => (role === "cluster-scraper" ? p.held === 0 : p.held === p.n);
  const read = parts.filter(readsKey);
  const rest = parts.filter((p) => !readsKey(p));
  const facts = parts.map((p) => `${share(p.held, p.n)} annotated with ${p.key}`).join(" and ");
  let reads: string | null = null;
  let conclusion: string;
  if (read.length === 1 && rest.every(ignoresKey)) {
    reads = read[0].key;
    conclusion = `it reads ${reads}`;
  } else if (!read.length && rest.every(ignoresKey)) conclusion = parts.length === 1 ? `it ignores ${parts[0].key}` : "it reads neither key";
  else conclusion = "no single key explains what it holds";
  return { role, reads, sentence: `the ${role} TA holds ${facts}: ${conclusion}` };
}

/** What to do: re-annotate with the key the TAs read (`reads`, when known), or upgrade; with a configured key, that key. */
function fixFor(c: Ctx, reads: string | null): string {
  const here = reads ? ` (here ${reads})` : "";
  return c.a.scraperAnnotation
    ? `scraperAnnotation is ${c.a.scraperAnnotation}: monitors are judged by that key only. Re-annotate the monitors named with ${c.a.scraperAnnotation}: ${CLUSTER_SCRAPER_VALUE}; if the TAs read another key${reads === c.a.scraperAnnotation ? "" : here}, set scraperAnnotation to it, or leave it out to recognise both spellings. Upgrading the operator makes both TAs read ${DEFAULT_SCRAPER_ANNOTATION}.`
    : `Re-annotate the monitors named with the key the running TAs read${here} (the operator's merged build reads ${DEFAULT_SCRAPER_ANNOTATION}, its earlier build ${EARLIER_SCRAPER_ANNOTATION}), or upgrade the operator so that both TAs read ${DEFAULT_SCRAPER_ANNOTATION}. A monitor carrying both keys needs the same value under both.`;
}

/** The sentence the summary ends with: what the TAs read, or that the two read different keys. */
function toldOf(readings: readonly Reading[]): { told: string; reads: string | null } {
  const [pn, cs] = (["per-node", "cluster-scraper"] as const).map((r) => readings.find((x) => x.role === r)?.reads ?? null);
  if (pn && cs && pn !== cs)
    return { told: ` The per-node TA reads ${pn} and the cluster-scraper TA reads ${cs}: they run different builds of the operator.`, reads: null };
  const r = readings.find((x) => x.role === "cluster-scraper" && x.reads) ?? readings.find((x) => x.reads) ?? readings[0];
  return { told: r ? ` ${r.sentence[0].toUpperCase()}${r.sentence.slice(1)}.` : "", reads: r?.reads ?? null };
}

export function scraperAnnotationKey(c: Ctx): Check {
  const configured = c.a.scraperAnnotation ? ` scraperAnnotation is set to ${c.a.scraperAnnotation}: only that key is recognised.` : "";
  if (!c.a.monitors) return notYet(base, "Monitors could not be read (CRDs missing or not listed yet).", "See ServiceMonitor and PodMonitor CRDs installed.");
  const gone = goneKinds(c);
  const monitors = c.a.monitors.filter((m) => !gone.has(m.kind));
  const annotated = monitors.filter((m) => c.knownScraperKeys.some((k) => has(m, k)));
  const carried = c.knownScraperKeys.filter((k) => annotated.some((m) => has(m, k)));
  const counts = carried.map((k) => countsOf(c, annotated.filter((m) => has(m, k)), k));
  if (!annotated.length)
    return mk({
      ...base,
      status: "pass",
      summary: `Not applicable: no monitor carries ${orList(c.knownScraperKeys)}, so every monitor goes to the per-node TA.${configured}`,
      fix: fixFor(c, null),
    });
  if (c.roles.length < 2)
    return mk({
      ...base,
      status: "pass",
      summary: `Not applicable: only the ${c.roles.join("")} TA is configured, so no monitor is routed between TAs.${configured}`,
      evidence: counts,
      fix: fixFor(c, null),
    });
  if (c.roles.some((r) => c.sum(r).taReady === null))
    return mk({ ...base, status: "unknown", summary: "A TA has not been read yet: which key it reads cannot be told.", evidence: counts, fix: fixFor(c, null) });

  const isCs = (m: MonitorRow, k: string) => m.annotations[k] === CLUSTER_SCRAPER_VALUE;
  // Monitors that tell the keys apart: their only cluster-scraper value is under this key.
  const telling = carried
    .map((key) => ({ key, monitors: annotated.filter((m) => isCs(m, key) && c.knownScraperKeys.every((k) => k === key || !isCs(m, k))) }))
    .filter((t) => t.monitors.length);
  const readings = telling.length ? c.roles.map((r) => reading(r, telling)) : [];

  const bad: string[] = [];
  const ignoredAsConfigured: string[] = [];
  const held = (m: MonitorRow) => (m.holders.length ? `held by ${m.holders.join(" and ")}` : "held by no TA");
  for (const m of annotated) {
    const line = `${monitorName(m)}: ${describeScraperKeys(c, m)}`;
    const csUnrecognised = c.knownScraperKeys.some((k) => !c.scraperKeys.includes(k) && isCs(m, k));
    if (m.expectedRole === null) bad.push(`${line}; its keys route it to different TAs, ${held(m)}`);
    else if (m.expectedRole === "cluster-scraper" && m.ownership !== "ok") bad.push(`${line}; routed to cluster-scraper, ${held(m)}`);
    else if (csUnrecognised && m.holders.includes("cluster-scraper")) bad.push(`${line}; ${held(m)}: the TAs read a key the configuration does not recognise`);
    else if (csUnrecognised && m.ownership === "ok") ignoredAsConfigured.push(`${line}; ${held(m)}, as the configured key says`);
  }
  const status: CheckStatus = bad.length ? "fail" : ignoredAsConfigured.length ? "warn" : "pass";
  const { told, reads } = toldOf(readings);
  const n = ignoredAsConfigured.length;
  const keysPhrase = carried.map((k) => `${plural(annotated.filter((m) => has(m, k)).length, "monitor")} with ${k}`).join(", ");
  const forCs = annotated.filter((m) => m.expectedRole === "cluster-scraper").length;
  const summary =
    status === "pass"
      ? forCs
        ? `The ${plural(forCs, "monitor")} annotated for the cluster-scraper ${forCs === 1 ? "is" : "are"} held by its TA alone (${keysPhrase}).${told}${configured}`
        : `No monitor is annotated for the cluster-scraper (${keysPhrase}): nothing is routed to it by annotation.${told}${configured}`
      : status === "fail"
        ? `${plural(bad.length, "monitor")} ${bad.length === 1 ? "is" : "are"} not held as ${bad.length === 1 ? "its" : "their"} scraper annotation says.${told}${configured}`
        : `${plural(n, "monitor")} ${n === 1 ? "carries" : "carry"} cluster-scraper under a key the configuration does not recognise, and the TAs ignore it too: ${n === 1 ? "it is" : "they are"} scraped per-node.${told}${configured}`;
  return mk({ ...base, status, summary, evidence: [...counts, ...readings.map((r) => r.sentence), ...bad, ...ignoredAsConfigured], fix: fixFor(c, reads) });
}

/**
 * The upstream TA's HTML answers to `/jobs` and `/scrape_configs` when `Accept` contains `text/html` (the cloudwatch fork
 * has none). A small page with one escaped table, shaped like upstream's properties table.
 */
import type { TaState } from "./state";
import { goQueryEscape } from "./encode";
import { scrapeConfigsView } from "./scrape";

export const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&#34;", "'": "&#39;" })[c]!);

type Cell = { text: string; link?: string; pre?: boolean };

function page(title: string, headers: string[], rows: Cell[][]): string {
  const cell = (c: Cell) => {
    const text = c.pre ? `<pre>${escapeHtml(c.text)}</pre>` : escapeHtml(c.text);
    return `<td>${c.link !== undefined ? `<a href="${escapeHtml(c.link)}">${text}</a>` : text}</td>`;
  };
  return [
    "<!DOCTYPE html>",
    `<html><head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head><body>`,
    `<h1>${escapeHtml(title)}</h1>`,
    "<table>",
    `<thead><tr>${headers.map((h) => `<th>${escapeHtml(h)}</th>`).join("")}</tr></thead>`,
    "<tbody>",
    ...rows.map((r) => `<tr>${r.map(cell).join("")}</tr>`),
    "</tbody></table></body></html>",
    "",
  ].join("\n");
}

const jobLink = (job: string) => `/debug/job?job_id=${goQueryEscape(job)}`;

export function jobsHtml(state: TaState): string {
  const rows = [...state.jobs.keys()]
    .sort()
    .map((job) => [{ text: job, link: jobLink(job) }, { text: String(state.jobs.get(job)!.targets.length) }]);
  return page("OpenTelemetry Target Allocator - Jobs", ["Job", "Target Count"], rows);
}

/** Always the redacted configs, also over TLS (upstream renders its non-secret response here). */
export function scrapeConfigsHtml(state: TaState): string {
  const configs = scrapeConfigsView(state, false);
  const rows = Object.keys(configs)
    .sort()
    .map((job) => [{ text: job, link: jobLink(job) }, { text: JSON.stringify(configs[job], null, 2), pre: true }]);
  return page("OpenTelemetry Target Allocator - Scrape Configs", ["Job", "Scrape Config"], rows);
}

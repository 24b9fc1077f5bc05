/** The shared view states: which one a query is in, and what a view or list renders in each (server-rendered markup). */
import { createElement, type ComponentProps, type ReactNode } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { NuqsTestingAdapter } from "nuqs/adapters/testing";
import { describe, expect, it } from "vitest";
import { ApiFetchError, clustersQuery } from "@/components/data/queries";
import { FilteredOut, ListState, ViewState, viewPhase, type Fresh, type ViewQuery } from "@/components/ui/ViewState";

const html = (node: ReactNode) => renderToStaticMarkup(createElement("div", null, node));
type Answer = Fresh & { rows: string[] };
const AT = Date.parse("2026-03-01T12:03:07Z");
const answer: Answer = { at: AT, pollIntervalMs: 5000, stale: [], rows: ["a", "b"] };

function element(query: ViewQuery<Answer>, extra: Record<string, unknown> = {}) {
  const props: ComponentProps<typeof ViewState<Answer>> = {
    query,
    api: "GET /api/v1/things",
    skeleton: (note: string | null) => createElement("p", null, `skeleton${note ? `: ${note}` : ""}`),
    children: (d: Answer, s) => createElement("section", null, d.rows.join(","), s.banners, s.updating ? " updating" : ""),
    ...extra,
  };
  return createElement(ViewState<Answer>, props);
}
const view = Object.assign((query: ViewQuery<Answer>, extra: Record<string, unknown> = {}) => html(element(query, extra)), { element });

describe("viewPhase", () => {
  it("tells loading, waiting for the first poll, failure and data apart", () => {
    expect(viewPhase({ data: undefined, error: null })).toBe("loading");
    expect(viewPhase({ data: undefined, error: new ApiFetchError(503, "no poll finished yet") })).toBe("waiting");
    expect(viewPhase({ data: undefined, error: new ApiFetchError(500, "boom") })).toBe("error");
    expect(viewPhase({ data: undefined, error: new Error("offline") })).toBe("error");
    expect(viewPhase({ data: answer, error: new Error("refetch failed") })).toBe("data");
  });
});

describe("ViewState", () => {
  it("shows the skeleton while loading, with a note while the first poll is pending", () => {
    expect(view({ data: undefined, error: null })).toBe("<div><p>skeleton</p></div>");
    expect(view({ data: undefined, error: new ApiFetchError(503, "not ready") })).toContain("skeleton: Waiting for the first poll of this cluster (not ready); retrying.");
  });

  it("shows the error state, naming the request, with a retry when it can refetch", () => {
    const out = view({ data: undefined, error: new Error("HTTP 500"), refetch: () => undefined });
    expect(out).toContain("Could not load this view");
    expect(out).toContain("GET /api/v1/things: HTTP 500");
    expect(out).toContain("Retry now");
    expect(view({ data: undefined, error: new Error("x") }, { errorAction: createElement("button", null, "Back") })).toContain("<button>Back</button>");
  });

  it("shows the configured clusters, and no retry, when the URL names a cluster the configuration lacks", () => {
    const client = new QueryClient();
    const roles = [{ role: "per-node" as const, flavor: "upstream" as const }];
    client.setQueryData(clustersQuery().queryKey, { demo: false, fleet: false, clusters: ["prod", "stage"].map((name) => ({ name, pollIntervalSeconds: 15, roles })) });
    const unknown = new ApiFetchError(404, 'no cluster named "nope" in the configuration', "unknown_cluster");
    const inApp = (node: ReactNode) => {
      const url = { searchParams: "?cluster=nope", children: createElement(QueryClientProvider, { client }, node) };
      return html(createElement(NuqsTestingAdapter, url));
    };
    const out = inApp(view.element({ data: undefined, error: unknown, refetch: () => undefined }, { failed: () => "not found" }));
    expect(out).toContain("No cluster named “nope”");
    expect(out).toContain('<a href="?">prod</a> (the default)');
    expect(out).toContain('<a href="?cluster=stage">stage</a>');
    expect(out).not.toContain("Retry");
    expect(out).not.toContain("not found");
    // another 404 (a node) is still the view's own
    expect(view({ data: undefined, error: new ApiFetchError(404, "no node", "unknown_node") }, { failed: () => "not found" })).toBe("<div>not found</div>");
  });

  it("lets a view replace the error state for some errors", () => {
    const out = view({ data: undefined, error: new ApiFetchError(404, "no such node") }, { failed: (e: Error) => (e instanceof ApiFetchError && e.status === 404 ? "not found" : undefined) });
    expect(out).toBe("<div>not found</div>");
  });

  it("renders the data, and keeps it with a refresh banner when a refetch failed", () => {
    expect(view({ data: answer, error: null })).toBe("<div><section>a,b</section></div>");
    const out = view({ data: answer, error: new Error("HTTP 502") });
    expect(out).toContain("a,b");
    expect(out).toContain("Could not refresh from GET /api/v1/things: showing the last answer");
    expect(out).toContain("data from 12:03:07 UTC");
    expect(view({ data: answer, error: null, isPlaceholderData: true })).toContain(" updating");
  });

  it("names failing sources, all of them or the ones the view picks", () => {
    const stale = [{ source: "c/ta/per-node", state: "stale", lastSuccess: AT, lastAttempt: AT, latencyMs: null, error: { kind: "http", message: "HTTP 500", hint: null } }];
    const data = { ...answer, stale } as unknown as Answer;
    expect(view({ data, error: null })).toContain("One source is failing");
    expect(view({ data, error: null }, { stale: () => [] })).not.toContain("failing");
  });
});

describe("ListState", () => {
  const list = (p: Partial<ComponentProps<typeof ListState>>) => {
    const props: ComponentProps<typeof ListState> = { empty: false, filteredOut: false, emptyState: "nothing there", filteredState: "all filtered", children: () => "the list", ...p };
    return html(createElement(ListState, props));
  };
  it("picks unknown, then empty, then filtered to nothing, then the list", () => {
    expect(list({})).toBe("<div>the list</div>");
    expect(list({ filteredOut: true })).toBe("<div>all filtered</div>");
    expect(list({ empty: true, filteredOut: true })).toBe("<div>nothing there</div>");
    expect(list({ empty: true, unknown: "unknown" })).toBe("<div>unknown</div>");
  });
  it("keeps the list's height in the other states", () => {
    expect(list({ empty: true, minHeight: 120 })).toBe('<div><div style="min-height:120px">nothing there</div></div>');
  });
  it("says how much the filters hide and offers the way back", () => {
    const out = html(createElement(FilteredOut, { title: "No node matches these filters", hidden: 12, noun: "node", onClear: () => undefined }));
    expect(out).toContain("<strong>No node matches these filters</strong>");
    expect(out).toContain("12 nodes hidden by the filters.");
    expect(out).toContain(">Clear filters</button>");
  });
});

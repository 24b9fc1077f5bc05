/**
 * The panel's error boundary, in isolation (vitest runs in node without a DOM, and server rendering does not run error
 * boundaries): the fallback a failed panel renders, from getDerivedStateFromError and render, and that a panel that does
 * not fail renders its content, including content given as a function.
 */
import { createElement, type ComponentProps, type ReactNode } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { Panel, PanelBoundary, PanelGuard } from "@/components/ui/Panel";

const html = (node: ReactNode) => renderToStaticMarkup(createElement("div", null, node));
const panel = (props: ComponentProps<typeof Panel>) => createElement(Panel, props);

function failed(error: unknown, head: ReactNode = createElement("h2", null, "Nodes")) {
  const boundary = new PanelBoundary({ head, children: createElement("p", null, "content") });
  boundary.state = PanelBoundary.getDerivedStateFromError(error);
  return boundary;
}

describe("Panel", () => {
  it("renders its title, its right slot and its content", () => {
    const out = html(panel({ title: "Node map", right: createElement("span", null, "12 nodes"), children: createElement("p", null, "tiles") }));
    expect(out).toContain('<h2 id="panel-node-map">Node map</h2>');
    expect(out).toContain("12 nodes");
    expect(out).toContain("<p>tiles</p>");
    expect(out).not.toContain("This panel failed");
  });

  it("calls content given as functions (inside its boundary)", () => {
    const out = html(panel({ title: "Nodes", right: () => "right side", children: () => createElement("p", null, "from a function") }));
    expect(out).toContain("right side");
    expect(out).toContain("<p>from a function</p>");
  });
});

describe("PanelBoundary", () => {
  it("renders its children while nothing failed", () => {
    const boundary = new PanelBoundary({ head: null, children: createElement("p", null, "content") });
    expect(html(boundary.render())).toBe("<div><p>content</p></div>");
  });

  it("keeps the panel's head and names the failure, with a retry", () => {
    const out = html(failed(new TypeError("Cannot read properties of undefined (reading 'healthy')")).render());
    expect(out).toContain("<h2>Nodes</h2>");
    expect(out).toContain('role="alert"');
    expect(out).toContain("This panel failed:");
    expect(out).toContain("Cannot read properties of undefined (reading &#x27;healthy&#x27;)");
    expect(out).toContain(">Retry</button>");
    expect(out).not.toContain("content");
  });

  it("turns anything thrown into an error with a message", () => {
    expect(PanelBoundary.getDerivedStateFromError("boom").error?.message).toBe("boom");
    expect(html(failed(new Error("")).render())).toContain("This panel failed:</strong> Error");
  });

  it("fails as a whole panel frame when it guards a component that renders its own panel", () => {
    const boundary = new PanelBoundary({ head: createElement("h2", null, "Zone flow"), frame: (f: ReactNode) => createElement("section", { className: "panel" }, f), children: null });
    boundary.state = PanelBoundary.getDerivedStateFromError(new Error("boom"));
    expect(html(boundary.render())).toMatch(/^<div><section class="panel"><h2>Zone flow<\/h2><div class="panel-failed" role="alert">.*boom.*<\/section><\/div>$/);
    const guard: ComponentProps<typeof PanelGuard> = { title: "Zone flow", children: createElement("p", null, "fine") };
    expect(html(createElement(PanelGuard, guard))).toBe("<div><p>fine</p></div>");
  });

  it("renders its content again on retry", () => {
    const boundary = failed(new Error("boom"));
    let next: unknown = null;
    boundary.setState = ((s: unknown) => {
      next = s;
    }) as typeof boundary.setState;
    boundary.retry();
    boundary.state = next as typeof boundary.state;
    expect(html(boundary.render())).toBe("<div><p>content</p></div>");
  });
});

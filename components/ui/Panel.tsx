"use client";
/**
 * The panel frame every view is built of, with its own error boundary: a panel whose content throws while rendering shows
 * "This panel failed" with a retry in its frame, and the rest of the page stays. Pass the content as a function
 * (`{() => ...}`) when it reads the data inline, so that a throw while computing it is caught by the panel too (a
 * component's own render is caught either way).
 */
import { Component, type ReactNode } from "react";

/** What a panel shows: elements, or a function called inside the panel's error boundary. */
export type PanelContent = ReactNode | (() => ReactNode);

interface PanelProps {
  title: string;
  right?: PanelContent;
  children: PanelContent;
  "aria-busy"?: boolean;
}

export const panelId = (title: string) => `panel-${title.toLowerCase().replace(/[^a-z0-9]+/g, "-")}`;

function Content({ content }: { content: PanelContent }) {
  return <>{typeof content === "function" ? content() : content}</>;
}

function PanelHead({ id, title, right }: { id: string; title: string; right?: PanelContent }) {
  return (
    <div className="panel-head">
      <h2 id={id}>{title}</h2>
      {right ? (
        <div className="right">
          <Content content={right} />
        </div>
      ) : null}
    </div>
  );
}

export function Panel({ title, right, children, ...rest }: PanelProps) {
  const id = panelId(title);
  return (
    <section className="panel" aria-labelledby={id} aria-busy={rest["aria-busy"]}>
      <PanelBoundary head={<PanelHead id={id} title={title} />}>
        <PanelHead id={id} title={title} right={right} />
        <Content content={children} />
      </PanelBoundary>
    </section>
  );
}

/**
 * The boundary for a component that computes its data before rendering its own Panel (outside that panel's boundary):
 * `export const RolePanel = (p) => <PanelGuard title=...><RolePanelInner {...p} /></PanelGuard>`. It fails as a panel
 * frame with the title.
 */
export function PanelGuard({ title, children }: { title: string; children: ReactNode }) {
  const id = panelId(title);
  return (
    <PanelBoundary
      head={<PanelHead id={id} title={title} />}
      frame={(fallback) => (
        <section className="panel" aria-labelledby={id}>
          {fallback}
        </section>
      )}
    >
      {children}
    </PanelBoundary>
  );
}

/** The fallback of a failed panel: what failed, and a retry (which renders the content again, with the latest data). */
export function PanelFailed({ message, onRetry }: { message: string; onRetry: () => void }) {
  return (
    <div className="panel-failed" role="alert">
      <span>
        <strong>This panel failed:</strong> {message}
      </span>
      <button type="button" className="btn" onClick={onRetry}>
        Retry
      </button>
    </div>
  );
}

interface BoundaryProps {
  /** kept on screen when the content fails (the panel's title) */
  head: ReactNode;
  /** wraps the fallback (a whole panel frame, when the boundary sits outside the panel) */
  frame?: (fallback: ReactNode) => ReactNode;
  children: ReactNode;
}

interface BoundaryState {
  error: Error | null;
}

/** A React error boundary for one panel (React reports the error itself: console.error and the root's onCaughtError). */
export class PanelBoundary extends Component<BoundaryProps, BoundaryState> {
  state: BoundaryState = { error: null };

  static getDerivedStateFromError(error: unknown): BoundaryState {
    return { error: error instanceof Error ? error : new Error(String(error)) };
  }

  retry = () => this.setState({ error: null });

  render() {
    if (!this.state.error) return this.props.children;
    const fallback = (
      <>
        {this.props.head}
        <PanelFailed message={this.state.error.message || this.state.error.name} onRetry={this.retry} />
      </>
    );
    return this.props.frame ? this.props.frame(fallback) : fallback;
  }
}

export function Skeleton({ height = 16, width = "100%" }: { height?: number; width?: number | string }) {
  return <div className="skeleton" style={{ height, width }} aria-hidden="true" />;
}

export function EmptyState({ title, hint, action }: { title: string; hint?: string; action?: ReactNode }) {
  return (
    <div className="empty">
      <strong>{title}</strong>
      {hint ? <div>{hint}</div> : null}
      {action ? <div style={{ marginTop: 8 }}>{action}</div> : null}
    </div>
  );
}

/** No data to show and the request failed: what failed, and what can be done. */
export function ErrorState({ title = "Could not load this view", message, action }: { title?: string; message: string; action?: ReactNode }) {
  return (
    <div className="banner bad" role="alert">
      <div>
        <strong>{title}</strong>
        {message}
        {action ? <div className="banner-actions">{action}</div> : null}
      </div>
    </div>
  );
}

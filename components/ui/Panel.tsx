import type { ReactNode } from "react";

interface PanelProps {
  title: string;
  right?: ReactNode;
  children: ReactNode;
  "aria-busy"?: boolean;
}

export function Panel({ title, right, children, ...rest }: PanelProps) {
  const id = `panel-${title.toLowerCase().replace(/[^a-z0-9]+/g, "-")}`;
  return (
    <section className="panel" aria-labelledby={id} aria-busy={rest["aria-busy"]}>
      <div className="panel-head">
        <h2 id={id}>{title}</h2>
        {right ? <div className="right">{right}</div> : null}
      </div>
      {children}
    </section>
  );
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

export function ErrorState({ message }: { message: string }) {
  return (
    <div className="banner bad" role="alert">
      <div>
        <strong>Could not load this view</strong>
        {message}
      </div>
    </div>
  );
}

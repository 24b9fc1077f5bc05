"use client";
/** The overview's "what is wrong right now": failing and warning checks, each linking to the view that explains it. */
import Link from "next/link";
import { useDiagnostics } from "@/components/data/churn-queries";
import { sortChecks } from "@/lib/views/diagnostics";
import type { Check } from "@/lib/analysis/diagnostics";
import { EmptyState, Panel, Skeleton } from "@/components/ui/Panel";
import { ListState, ViewState } from "@/components/ui/ViewState";

const TONE = { fail: "bad", warn: "warn", unknown: "muted", pass: "ok" } as const;
const WORD = { fail: "failing", warn: "warning", unknown: "unknown", pass: "pass" } as const;
const MAX = 5;

function ProblemList({ checks, withQuery }: { checks: Check[]; withQuery: (view: string) => string }) {
  const problems = sortChecks(checks).filter((c) => c.status === "fail" || c.status === "warn");
  return (
    <ListState empty={problems.length === 0} emptyState={<EmptyState title="No problem found" hint={`All ${checks.length} checks pass or cannot be decided yet.`} />}>
      <ul style={{ listStyle: "none", margin: 0, padding: 0, display: "grid", gap: 8 }}>
        {problems.slice(0, MAX).map((c) => (
          <li key={c.id} style={{ display: "flex", gap: 10, alignItems: "baseline" }}>
            <span className={`badge ${TONE[c.status]}`}>{WORD[c.status]}</span>
            <span style={{ minWidth: 0 }}>
              <Link href={withQuery(c.view)} prefetch={false}>
                {c.title}
              </Link>
              <span style={{ color: "var(--muted)" }}> - {c.summary}</span>
            </span>
          </li>
        ))}
        {problems.length > MAX ? (
          <li>
            <Link href={withQuery("/diagnostics")} prefetch={false}>
              {problems.length - MAX} more on Diagnostics
            </Link>
          </li>
        ) : null}
      </ul>
    </ListState>
  );
}

export function TopProblems({ query }: { query: string }) {
  const q = useDiagnostics();
  const withQuery = (view: string) => (view.includes("?") ? `${view}${query.replace("?", "&")}` : `${view}${query}`);
  return (
    <Panel title="Top problems" right={<Link href={withQuery("/diagnostics")} prefetch={false}>All checks</Link>}>
      <div style={{ minHeight: 96 }}>
        {/* the overview names failing sources once, from the summary: no banners here */}
        <ViewState query={q} api="GET /api/v1/diagnostics" skeleton={<Skeleton height={96} />} failed={(e) => <EmptyState title="Diagnostics unavailable" hint={e.message} />}>
          {(d) => <ProblemList checks={d.checks} withQuery={withQuery} />}
        </ViewState>
      </div>
    </Panel>
  );
}

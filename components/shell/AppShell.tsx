"use client";
import Link from "next/link";
import { usePathname, useSearchParams } from "next/navigation";
import { Suspense, type ReactNode } from "react";
import { ThemeToggle } from "@/components/shell/ThemeToggle";
import { ClusterPicker } from "@/components/shell/ClusterPicker";
import { DemoPanel } from "@/components/shell/DemoPanel";
import { useClusters } from "@/components/data/queries";
import { keptParams } from "@/lib/views/cluster-link";

export const VIEWS = [
  { href: "/", label: "Overview" },
  { href: "/nodes", label: "Nodes" },
  { href: "/ownership", label: "Ownership" },
  { href: "/lost", label: "Lost" },
  { href: "/targets", label: "Targets" },
  { href: "/collectors", label: "Collectors" },
  { href: "/churn", label: "Churn" },
  { href: "/diagnostics", label: "Diagnostics" },
  { href: "/alerts", label: "Alerts" },
] as const;

/** Shown only when the configuration has a fleet backend (GET /api/v1/clusters says so). */
export const FLEET_VIEW = { href: "/fleet", label: "Fleet" } as const;

function Nav() {
  const pathname = usePathname();
  const params = useSearchParams();
  const fleet = useClusters().data?.fleet === true;
  const keep = keptParams(params);
  const suffix = keep.toString() ? `?${keep}` : "";
  return (
    <nav className="shell-nav" aria-label="Views">
      {[...VIEWS, ...(fleet ? [FLEET_VIEW] : [])].map((v) => (
        <Link key={v.href} href={`${v.href}${suffix}`} aria-current={pathname === v.href ? "page" : undefined} prefetch={false}>
          {v.label}
        </Link>
      ))}
    </nav>
  );
}

export function AppShell({ children }: { children: ReactNode }) {
  return (
    <>
      <a href="#main" className="skip-link">
        Skip to content
      </a>
      <header className="shell-header">
        <Link href="/" className="shell-brand" aria-label="Allocation Lens home" prefetch={false}>
          <svg width="20" height="20" viewBox="0 0 20 20" aria-hidden="true">
            <circle cx="8.5" cy="8.5" r="6" fill="none" stroke="currentColor" strokeWidth="2" />
            <path d="M13 13l5 5" stroke="currentColor" strokeWidth="2.2" strokeLinecap="round" />
            <circle cx="8.5" cy="8.5" r="2.2" fill="var(--c-local)" />
          </svg>
          <span className="brand-text">Allocation Lens</span>
        </Link>
        <Suspense fallback={<nav className="shell-nav" aria-label="Views" />}>
          <Nav />
        </Suspense>
        <div className="shell-spacer" />
        <Suspense fallback={null}>
          <ClusterPicker />
          <DemoPanel />
        </Suspense>
        <ThemeToggle />
      </header>
      <main id="main" className="shell-main">
        <Suspense fallback={null}>{children}</Suspense>
      </main>
    </>
  );
}

/** Embedded views: no navigation chrome, tight padding, sized for an iframe tile. */
export function EmbedShell({ children }: { children: ReactNode }) {
  return (
    <main className="embed-main">
      <Suspense fallback={null}>{children}</Suspense>
    </main>
  );
}

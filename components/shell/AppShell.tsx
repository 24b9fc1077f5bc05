"use client";
import Link from "next/link";
import { usePathname } from "next/navigation";
import type { ReactNode } from "react";

export const VIEWS = [
  { href: "/", label: "Overview" },
  { href: "/nodes", label: "Nodes" },
  { href: "/ownership", label: "Ownership" },
  { href: "/targets", label: "Targets" },
  { href: "/collectors", label: "Collectors" },
  { href: "/churn", label: "Churn" },
  { href: "/diagnostics", label: "Diagnostics" },
] as const;

export function AppShell({ children }: { children: ReactNode }) {
  const pathname = usePathname();
  return (
    <>
      <header className="shell-header">
        <Link href="/" className="shell-brand" aria-label="Allocation Lens home">
          <svg width="20" height="20" viewBox="0 0 20 20" aria-hidden="true">
            <circle cx="8.5" cy="8.5" r="6" fill="none" stroke="currentColor" strokeWidth="2" />
            <path d="M13 13l5 5" stroke="currentColor" strokeWidth="2.2" strokeLinecap="round" />
            <circle cx="8.5" cy="8.5" r="2.2" fill="var(--c-local)" />
          </svg>
          Allocation Lens
        </Link>
        <nav className="shell-nav" aria-label="Views">
          {VIEWS.map((v) => (
            <Link key={v.href} href={v.href} aria-current={pathname === v.href ? "page" : undefined}>
              {v.label}
            </Link>
          ))}
        </nav>
        <div className="shell-spacer" />
      </header>
      <main className="shell-main">{children}</main>
    </>
  );
}

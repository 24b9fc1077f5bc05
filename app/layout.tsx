import type { Metadata } from "next";
import type { ReactNode } from "react";
import { headers } from "next/headers";
import { Providers } from "@/components/providers";
import { THEME_SCRIPT } from "@/components/shell/theme";
import "./globals.css";

export const metadata: Metadata = {
  title: "Allocation Lens",
  description: "Live view of Prometheus target allocation in Kubernetes: locality, ownership, lost targets, churn.",
};

export default async function RootLayout({ children }: { children: ReactNode }) {
  // proxy.ts sets a fresh CSP nonce per request (server/auth.ts); reading it renders every page per request, which the
  // nonce needs (Next.js also puts it on its own scripts).
  const nonce = (await headers()).get("x-nonce") ?? undefined;
  return (
    <html lang="en" suppressHydrationWarning>
      <head>
        <script nonce={nonce} suppressHydrationWarning dangerouslySetInnerHTML={{ __html: THEME_SCRIPT }} />
      </head>
      <body>
        <Providers>{children}</Providers>
      </body>
    </html>
  );
}

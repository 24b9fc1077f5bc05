"use client";
/** The root layout itself failed: a document of its own (Next.js renders it instead of the layout). */
import { PageFailed } from "@/components/shell/PageFailed";
import "./globals.css";

export default function GlobalError({ error, retry }: { error: unknown; retry: () => void }) {
  return (
    <html lang="en">
      <body>
        <title>Allocation Lens: error</title>
        <main className="shell-main">
          <PageFailed error={error} retry={retry} />
        </main>
      </body>
    </html>
  );
}

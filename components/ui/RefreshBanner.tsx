import { clockTime } from "@/lib/format";
/** The dashboard's own API failed on a refetch: the last answer stays on screen, and says so. */
export function RefreshBanner({ api, error, at }: { api: string; error: Error | null; at: number | undefined }) {
  if (!error) return null;
  return (
    <div className="banner warn" role="status" aria-live="polite">
      <div>
        <strong>Could not refresh from {api}: showing the last answer</strong>
        {error.message}
        {at ? ` (data from ${clockTime(at)})` : ""}
      </div>
    </div>
  );
}

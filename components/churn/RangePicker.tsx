"use client";
import { useId, useState, type FormEvent } from "react";
import { RANGES, fromInputValue, toInputValue, type ChurnRangeRequest, type RangeKey } from "@/lib/views/churn-ranges";
import styles from "./churn.module.css";
import { utcMinute } from "@/lib/format";

interface Props {
  request: ChurnRangeRequest;
  /** the range the server answered for (shown for a custom range, seeds the custom form) */
  shown: { from: number; to: number } | null;
  onPreset: (key: RangeKey) => void;
  onCustom: (from: string, to: string | null) => void;
  /** the presets offered (longer ones with a Prometheus backend) */
  keys: readonly RangeKey[];
  /** no custom form (embed tiles) */
  compact?: boolean;
}

/** Presets as a segmented group (aria-pressed), and a custom from/to form in UTC. */
export function RangePicker({ request, shown, onPreset, onCustom, keys, compact = false }: Props) {
  const [open, setOpen] = useState(false);
  const active = request.kind === "preset" ? request.key : null;
  return (
    <div className={styles.picker}>
      {request.kind === "custom" && shown ? (
        <span className={styles.customLabel} title="custom range, UTC">
          {utcMinute(shown.from)} → {request.to === null ? "now" : utcMinute(shown.to)} UTC
        </span>
      ) : null}
      <div className={styles.segments} role="group" aria-label="Time range">
        {keys.map((k) => (
          <button key={k} type="button" aria-pressed={active === k} onClick={() => onPreset(k)} title={RANGES[k].phrase}>
            {RANGES[k].label}
          </button>
        ))}
        {compact ? null : (
          <button type="button" aria-pressed={request.kind === "custom"} aria-expanded={open} onClick={() => setOpen((o) => !o)}>
            Custom…
          </button>
        )}
      </div>
      {open && !compact ? (
        <CustomForm
          initial={shown}
          onCancel={() => setOpen(false)}
          onApply={(from, to) => {
            onCustom(from, to);
            setOpen(false);
          }}
        />
      ) : null}
    </div>
  );
}

function CustomForm({ initial, onApply, onCancel }: { initial: { from: number; to: number } | null; onApply: (from: string, to: string | null) => void; onCancel: () => void }) {
  const id = useId();
  const [from, setFrom] = useState(() => (initial ? toInputValue(initial.from) : ""));
  const [to, setTo] = useState(() => (initial ? toInputValue(initial.to) : ""));
  const [error, setError] = useState<string | null>(null);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const f = fromInputValue(from);
    const t = to ? fromInputValue(to) : null;
    if (f === null) return setError("Enter a start time.");
    if (t !== null && t <= f) return setError("The end must be after the start.");
    onApply(`${from}Z`, to ? `${to}Z` : null);
  };
  return (
    <form className={styles.popover} onSubmit={submit} onKeyDown={(e) => e.key === "Escape" && onCancel()} aria-label="Custom time range">
      <label htmlFor={`${id}-from`}>
        From (UTC)
        <input id={`${id}-from`} className="input" type="datetime-local" value={from} onChange={(e) => setFrom(e.target.value)} required autoFocus />
      </label>
      <label htmlFor={`${id}-to`}>
        To (UTC, empty: now)
        <input id={`${id}-to`} className="input" type="datetime-local" value={to} onChange={(e) => setTo(e.target.value)} />
      </label>
      {error ? (
        <p className={styles.formError} role="alert">
          {error}
        </p>
      ) : null}
      <div className={styles.popoverActions}>
        <button type="button" className="btn" onClick={onCancel}>
          Cancel
        </button>
        <button type="submit" className="btn btn-primary">
          Apply
        </button>
      </div>
    </form>
  );
}

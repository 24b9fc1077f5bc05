import { formatPercent } from "@/lib/format";
/**
 * A half-circle gauge for a ratio in [0, 1], drawn from props only; the number is in the text, so it reads without colour.
 * `null` shows "n/a" with an empty arc.
 */
interface GaugeProps {
  value: number | null;
  label: string;
  /** thresholds for the colour: below `bad` red, below `warn` amber, else green */
  warn?: number;
  bad?: number;
  size?: number;
  testId?: string;
}

export function Gauge({ value, label, warn = 0.95, bad = 0.8, size = 120, testId }: GaugeProps) {
  const r = 42;
  const circumference = Math.PI * r;
  const v = value === null ? 0 : Math.max(0, Math.min(1, value));
  const colour = value === null ? "var(--border)" : v < bad ? "var(--bad)" : v < warn ? "var(--warn)" : "var(--ok)";
  const text = formatPercent(value === null ? null : v);
  return (
    <figure style={{ margin: 0, width: size, textAlign: "center" }} aria-label={`${label}: ${text}`} role="img">
      <svg viewBox="0 0 100 58" width={size} height={(size * 58) / 100} aria-hidden="true">
        <path d="M 8 50 A 42 42 0 0 1 92 50" fill="none" stroke="var(--panel-2)" strokeWidth="10" strokeLinecap="round" />
        <path
          d="M 8 50 A 42 42 0 0 1 92 50"
          fill="none"
          stroke={colour}
          strokeWidth="10"
          strokeLinecap="round"
          strokeDasharray={`${circumference * v} ${circumference}`}
        />
        <text x="50" y="48" textAnchor="middle" fontSize="17" fontWeight="600" fill="var(--text)" data-testid={testId}>
          {text}
        </text>
      </svg>
      <figcaption style={{ fontSize: 12, color: "var(--muted)", marginTop: -2 }}>{label}</figcaption>
    </figure>
  );
}

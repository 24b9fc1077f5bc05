"use client";
import { useRef, useState } from "react";
import styles from "./targets.module.css";

/**
 * Free-text search, committed to the URL after a short pause in typing (one request per pause, not per key). Follows the
 * URL when it changes from elsewhere (clear filters, back button).
 */
export function SearchBox({ value, onCommit }: { value: string; onCommit: (v: string) => void }) {
  const [draft, setDraft] = useState(value);
  const [seen, setSeen] = useState(value);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  if (value !== seen) {
    setSeen(value);
    setDraft(value);
  }
  const change = (v: string) => {
    setDraft(v);
    clearTimeout(timer.current);
    timer.current = setTimeout(() => onCommit(v), 250);
  };
  return (
    <input
      type="search"
      className={`input ${styles.search}`}
      value={draft}
      onChange={(e) => change(e.target.value)}
      onKeyDown={(e) => {
        if (e.key === "Enter") {
          clearTimeout(timer.current);
          onCommit(draft);
        }
      }}
      placeholder="Search address, job, node, collector"
      aria-label="Search targets by address, job, node or collector"
      maxLength={200}
      spellCheck={false}
    />
  );
}

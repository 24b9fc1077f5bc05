"use client";
/** Placeholder until the demo panel lands: renders nothing outside demo mode. */
export function DemoPanel() {
  return null;
}

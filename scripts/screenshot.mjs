#!/usr/bin/env node
// Developer aid: screenshots of dashboard pages in Debian's Chromium. usage: node scripts/screenshot.mjs BASE_URL OUT_DIR path[@WxH] ...
import { chromium } from "@playwright/test";
import fs from "node:fs";
import path from "node:path";

const [base, out, ...pages] = process.argv.slice(2);
fs.mkdirSync(out, { recursive: true });
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
  args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic"],
});
for (const spec of pages) {
  const [p, size = "1280x800"] = spec.split("@");
  const [width, height] = size.split("x").map(Number);
  const page = await browser.newPage({ viewport: { width, height } });
  const errors = [];
  page.on("console", (m) => m.type() === "error" && errors.push(m.text()));
  await page.goto(base + p, { waitUntil: "load" });
  await page.waitForTimeout(Number(process.env.WAIT_MS ?? 1500));
  const file = path.join(out, `${p.replace(/[^a-z0-9]+/gi, "_") || "root"}_${width}x${height}.png`);
  await page.screenshot({ path: file, fullPage: process.env.FULL === "1" });
  console.log(file, errors.length ? `console errors: ${errors.join(" | ")}` : "");
  await page.close();
}
await browser.close();

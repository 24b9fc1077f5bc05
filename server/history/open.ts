import "server-only";
/**
 * Opens the history store from the configuration: SQLite at `history.path` (default `.data/history.sqlite` under the working
 * directory), or bounded memory when that file cannot be used (corrupt, unreadable, unwritable). The dashboard keeps
 * working either way; the store's `status` says which backend is in use and why.
 */
import fs from "node:fs";
import path from "node:path";
import type { Config } from "@/lib/config/schema";
import { MemoryHistory } from "@/server/history/memory";
import { SqliteHistory } from "@/server/history/sqlite";
import type { HistoryStore } from "@/server/history/types";

export const DEFAULT_HISTORY_PATH = ".data/history.sqlite";
/** `history.path: ":memory:"` keeps history in memory on purpose (no error reported). */
export const MEMORY_PATH = ":memory:";

export type Log = (message: string) => void;

export function openHistory(config: Config["history"], log: Log = (m) => console.warn(m), cwd = process.cwd()): HistoryStore {
  if (config.path === MEMORY_PATH) return new MemoryHistory(config.retentionDays);
  const file = path.resolve(cwd, config.path ?? DEFAULT_HISTORY_PATH);
  try {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    return new SqliteHistory(file, { retentionDays: config.retentionDays, maxBytes: config.maxBytes });
  } catch (e) {
    const error = `cannot use ${file}: ${(e as Error).message}`;
    log(`allocation-lens: history: ${error}; keeping churn history in memory (lost on restart)`);
    return new MemoryHistory(config.retentionDays, { path: file, error });
  }
}

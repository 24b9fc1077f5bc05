import { afterEach, beforeEach, describe, expect, it } from "vitest";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { openHistory } from "@/server/history/open";

const config = { retentionDays: 7, maxBytes: 256 * 1024 * 1024 };
let dir: string;
let logged: string[];
const log = (m: string) => logged.push(m);

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "history-open-"));
  logged = [];
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

describe("openHistory", () => {
  it("opens SQLite at .data/history.sqlite under the working directory by default, creating the directory", () => {
    const store = openHistory(config, log, dir);
    const file = path.join(dir, ".data", "history.sqlite");
    expect(store.status).toEqual({ backend: "sqlite", path: file, error: null });
    expect(fs.existsSync(file)).toBe(true);
    store.close();
    expect(logged).toEqual([]);
  });

  it("falls back to memory, naming the file, when the file is not a database", () => {
    const file = path.join(dir, "garbage.sqlite");
    fs.writeFileSync(file, Buffer.from(Array.from({ length: 16384 }, (_, i) => (i * 7919) % 251)));
    const store = openHistory({ ...config, path: file }, log);
    expect(store.status.backend).toBe("memory");
    expect(store.status.path).toBe(file);
    expect(store.status.error).toContain(file);
    expect(store.status.error).toMatch(/not a database/);
    expect(logged[0]).toMatch(/keeping churn history in memory/);
    // the fallback works
    store.write("c1", { readiness: [], poll: { at: 1, pollMs: 1, roles: {} } });
    expect(store.polls("c1", { from: 0, to: 2 })).toHaveLength(1);
    // the corrupt file is left for the operator to inspect
    expect(fs.readFileSync(file).length).toBe(16384);
  });

  it("falls back to memory when the directory cannot be created (its parent is a file)", () => {
    const parent = path.join(dir, "a-file");
    fs.writeFileSync(parent, "x");
    const file = path.join(parent, "sub", "history.sqlite");
    const store = openHistory({ ...config, path: file }, log);
    expect(store.status).toMatchObject({ backend: "memory", path: file });
    expect(store.status.error).toContain(file);
    expect(store.status.error).toMatch(/ENOTDIR/);
  });

  it("falls back to memory when the path is under a regular file", () => {
    const store = openHistory({ ...config, path: "/etc/hostname/x.sqlite" }, log);
    expect(store.status.backend).toBe("memory");
    expect(store.status.error).toContain("/etc/hostname/x.sqlite");
  });

  it("keeps history in memory on purpose with path :memory:", () => {
    expect(openHistory({ ...config, path: ":memory:" }, log).status).toEqual({ backend: "memory", path: null, error: null });
    expect(logged).toEqual([]);
  });
});

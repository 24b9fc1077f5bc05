/** Temporary directories of tests, under the OS's temp directory. */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

/** A new empty directory named `<prefix>XXXXXX`. */
export function tempDir(prefix: string): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

/** Removes `dir` and everything in it; nothing when it is already gone. */
export function removeDir(dir: string | undefined): void {
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
}

import { processAlive } from "@allocation-lens/test-support/processes";
import { waitFor } from "@allocation-lens/test-support/wait";
import { readEnv } from "./env";

/**
 * SIGTERM to the processes the setup started, then a wait until they are gone: a demo removes its temporary folder (TLS
 * keys, control token) as it closes, and the launcher kills what is still running when this process exits.
 */
export default async function globalTeardown() {
  let pids: number[];
  try {
    pids = readEnv().pids;
  } catch {
    return; // setup never wrote the file
  }
  for (const pid of pids) {
    try {
      process.kill(pid, "SIGTERM");
    } catch {
      /* already gone */
    }
  }
  await waitFor("the e2e processes to close", () => !pids.some(processAlive), { timeoutMs: 15_000, intervalMs: 100 }).catch((e: Error) => console.warn(e.message));
}

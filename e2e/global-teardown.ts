import { readEnv } from "./env";

export default async function globalTeardown() {
  try {
    for (const pid of readEnv().pids) {
      try {
        process.kill(pid, "SIGTERM");
      } catch {
        /* already gone */
      }
    }
  } catch {
    /* setup never wrote the file */
  }
}

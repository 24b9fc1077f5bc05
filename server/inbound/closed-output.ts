/**
 * A closed standard output or error: whoever read it is gone (a parent that died, `npm start | head`), and Node reports
 * each failed write as an `error` event of the stream. Left without a listener, that event is an uncaught exception, which
 * Next.js' handler logs to the same closed stream, whose failure is logged again: the process spun at 70 % of a core,
 * serving and polling for no one (seen on replicas whose test runner had been killed). Instead, a write refused with
 * EPIPE stops the server once, as SIGTERM does (Unix programs stop on SIGPIPE); any other error of those streams is
 * dropped, since there is nowhere to report it.
 */
import type { EventEmitter } from "node:events";

export function stopOnClosedOutput(streams: EventEmitter[], stop: () => void): void {
  let stopped = false;
  const onError = (e: NodeJS.ErrnoException) => {
    if (e?.code !== "EPIPE" || stopped) return;
    stopped = true;
    stop();
  };
  for (const s of streams) s.on("error", onError);
}

/**
 * The stop of stopOnClosedOutput: SIGTERM to this process, so that the same handlers run (the server closes, the runtime
 * stops its pollers and flushes the history), unless a stop has already begun (its one-time handlers gone: a second
 * SIGTERM would then kill the process at once, with the history unflushed).
 */
export function terminateSelf(): void {
  if (process.listenerCount("SIGTERM") > 0) process.kill(process.pid, "SIGTERM");
}

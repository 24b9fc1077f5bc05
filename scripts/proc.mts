/**
 * Memory and CPU of a process tree, for the bench and the attack suite. A module of its own, with no package imports, so that the
 * attack suite's observer thread (a worker) can load it alone.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";

/** The thread ids of `pid` (/proc/<pid>/task), or none when it has exited. */
function tasksOf(pid: number): string[] {
  try {
    return fs.readdirSync(`/proc/${pid}/task`);
  } catch {
    return [];
  }
}

/** The CPU time (user + system, ms) of a /proc stat file's text: fields 14 and 15, in clock ticks of 10 ms (USER_HZ 100). */
function statMs(stat: string): number {
  const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(f[11]) + Number(f[12])) * 10;
}

/** The pids of `pid` and its descendants, from /proc (Linux), or from `ps` elsewhere. */
export function processTree(pid: number): number[] {
  if (fs.existsSync(`/proc/${pid}/task`)) {
    const out: number[] = [];
    const visit = (p: number) => {
      out.push(p);
      for (const t of tasksOf(p)) {
        let kids = "";
        try {
          kids = fs.readFileSync(`/proc/${p}/task/${t}/children`, "utf8");
        } catch {
          continue;
        }
        for (const k of kids.trim().split(/\s+/).filter(Boolean)) visit(Number(k));
      }
    };
    visit(pid);
    return out;
  }
  const rows = spawnSync("ps", ["-eo", "pid=,ppid="], { encoding: "utf8" }).stdout.trim().split("\n").map((l) => l.trim().split(/\s+/).map(Number));
  const tree = new Set([pid]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const [p, pp] of rows) {
      if (tree.has(pp) && !tree.has(p)) {
        tree.add(p);
        grew = true;
      }
    }
  }
  return [...tree];
}

/** Resident memory of `pid` and its descendants, in bytes (VmRSS from /proc; `ps` where there is no /proc). */
export function rssOfTree(pid: number): number {
  if (fs.existsSync(`/proc/${pid}/status`)) {
    let sum = 0;
    for (const p of processTree(pid)) {
      try {
        const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${p}/status`, "utf8"));
        if (m) sum += Number(m[1]) * 1024;
      } catch {
        /* exited meanwhile */
      }
    }
    return sum;
  }
  const out = spawnSync("ps", ["-eo", "pid=,rss="], { encoding: "utf8" }).stdout;
  const rss = new Map(out.trim().split("\n").map((l) => l.trim().split(/\s+/).map(Number) as [number, number]));
  return processTree(pid).reduce((s, p) => s + (rss.get(p) ?? 0) * 1024, 0);
}

/** CPU time (user + system) of `pid` and its descendants so far, in ms, every thread counted (/proc, Linux; NaN elsewhere). */
export function cpuOfTree(pid: number): number {
  if (!fs.existsSync(`/proc/${pid}/stat`)) return NaN;
  let ms = 0;
  for (const p of processTree(pid)) {
    try {
      ms += statMs(fs.readFileSync(`/proc/${p}/stat`, "utf8"));
    } catch {
      /* exited meanwhile */
    }
  }
  return ms;
}

/**
 * CPU time (user + system, ms) of each thread of `pid` and its descendants so far, keyed "pid/tid" (/proc, Linux; empty
 * elsewhere). Node names every thread of a process "node", so a thread is told apart by its id and by how busy it is.
 */
export function cpuOfThreads(pid: number): Map<string, number> {
  const out = new Map<string, number>();
  if (!fs.existsSync(`/proc/${pid}/task`)) return out;
  for (const p of processTree(pid)) {
    for (const t of tasksOf(p)) {
      try {
        out.set(`${p}/${t}`, statMs(fs.readFileSync(`/proc/${p}/task/${t}/stat`, "utf8")));
      } catch {
        /* exited meanwhile */
      }
    }
  }
  return out;
}

/**
 * How long the thread `tid` of `pid` (its main thread by default) has waited on a run queue so far: runnable, not
 * running, for want of a free core (ms; /proc/<pid>/task/<tid>/schedstat's second field, Linux; NaN elsewhere).
 */
export function runQueueWaitMs(pid: number, tid = pid): number {
  try {
    return Number(fs.readFileSync(`/proc/${pid}/task/${tid}/schedstat`, "utf8").split(" ")[1]) / 1e6;
  } catch {
    return NaN;
  }
}

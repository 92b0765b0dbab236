// CPU time a process has spent on a core, from /proc/<pid>/task/*/schedstat (nanoseconds on CPU, per
// thread, summed: the main thread, libuv's pool, V8's GC threads, SQLite's checkpoint worker). Where
// svc keeps its core busy, CPU per request is about 1/throughput and says nothing new (on this VM the
// hypervisor's stolen time is charged to the process too); where it waits (PostgreSQL round trips), it
// tells svc's own cost per request apart from the wait.
import { readdirSync, readFileSync } from 'node:fs';

/** Nanoseconds on CPU of each thread of `pid` now, by thread id (the main thread's id is `pid`). */
export function threadCpuNs(pid: number): Map<number, number> {
  const byThread = new Map<number, number>();
  let tasks: string[];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return byThread;
  }
  for (const task of tasks) {
    try {
      byThread.set(Number(task), Number(readFileSync(`/proc/${pid}/task/${task}/schedstat`, 'utf8').split(' ')[0]));
    } catch {
      // A thread that ended between the listing and the read: its time is gone with it.
    }
  }
  return byThread;
}

export function processCpuNs(pid: number): number {
  let total = 0;
  for (const ns of threadCpuNs(pid).values()) total += ns;
  return total;
}

/** User and kernel CPU time of a process (all its threads), in clock ticks, from /proc/<pid>/stat. */
export interface CpuTicks {
  user: number;
  kernel: number;
}

/**
 * utime and stime from the text of /proc/<pid>/stat. The command name (field 2) is in parentheses and
 * may hold spaces and parentheses itself, so fields are counted from the last ')'.
 */
export function parseStatTicks(stat: string): CpuTicks {
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // fields[0] is field 3 (state): utime (field 14) and stime (field 15) follow.
  const user = Number(fields[11]);
  const kernel = Number(fields[12]);
  if (!Number.isFinite(user) || !Number.isFinite(kernel))
    throw new Error(`not a /proc/<pid>/stat line: ${stat.slice(0, 80)}`);
  return { user, kernel };
}

export function processCpuTicks(pid: number): CpuTicks | null {
  try {
    return parseStatTicks(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return null;
  }
}

/**
 * The kernel's share of the CPU time spent between two readings (system calls: the sockets' TCP
 * path, SQLite's file I/O), or null when either is missing or no time passed. Ticks are 10 ms, so over
 * a measured run of several seconds the share is good to a per cent or two.
 */
export function kernelShare(before: CpuTicks | null, after: CpuTicks | null): number | null {
  if (!before || !after) return null;
  const user = after.user - before.user;
  const kernel = after.kernel - before.kernel;
  return user + kernel > 0 ? kernel / (user + kernel) : null;
}

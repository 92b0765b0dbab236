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

// CPU time a process has spent on a core, from /proc/<pid>/task/*/schedstat (nanoseconds on CPU, per
// thread, summed: the main thread, libuv's pool, V8's GC threads, SQLite's checkpoint worker). Where
// svc keeps its core busy, CPU per request is about 1/throughput and says nothing new (on this VM the
// hypervisor's stolen time is charged to the process too); where it waits (PostgreSQL round trips), it
// tells svc's own cost per request apart from the wait.
import { readdirSync, readFileSync } from 'node:fs';

export function processCpuNs(pid: number): number {
  let total = 0;
  let tasks: string[];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return 0;
  }
  for (const task of tasks) {
    try {
      total += Number(readFileSync(`/proc/${pid}/task/${task}/schedstat`, 'utf8').split(' ')[0]);
    } catch {
      // A thread that ended between the listing and the read: its time is gone with it.
    }
  }
  return total;
}

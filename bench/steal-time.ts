// Time the hypervisor took from each core (the `steal` column of /proc/stat): on a shared virtual
// machine a core can be gone for tens of milliseconds, and whatever svc or the driver was doing then
// arrives late. Recorded per second of the SSE run, so that a bad second can be told apart as the
// host's or the process's.
import { readFileSync } from 'node:fs';

/** USER_HZ: /proc/stat counts in hundredths of a second on Linux. */
const MS_PER_TICK = 10;

/** Milliseconds stolen from each core since boot, by core number, from the text of /proc/stat. */
export function stolenMsByCore(procStat: string): number[] {
  const stolen: number[] = [];
  for (const line of procStat.split('\n')) {
    const match = /^cpu(\d+) /.exec(line);
    if (!match) continue;
    // cpuN user nice system idle iowait irq softirq steal ...
    const steal = Number(line.trim().split(/\s+/)[8] ?? 0);
    stolen[Number(match[1])] = (Number.isFinite(steal) ? steal : 0) * MS_PER_TICK;
  }
  return stolen;
}

/** The milliseconds stolen from each core since the previous call (the first call: since it was made). */
export function stealMeter(read: () => string = () => readFileSync('/proc/stat', 'utf8')): () => number[] {
  const safeRead = () => {
    try {
      return stolenMsByCore(read());
    } catch {
      return []; // not Linux: nothing to report
    }
  };
  let last = safeRead();
  return () => {
    const now = safeRead();
    const delta = now.map((ms, core) => ms - (last[core] ?? ms));
    last = now;
    return delta;
  };
}

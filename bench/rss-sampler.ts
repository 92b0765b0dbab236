// Memory of a process from /proc/<pid>/status: VmRSS now, and VmHWM (the peak since it started).
import { readFileSync } from 'node:fs';

function statusKb(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  try {
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) : 0;
  } catch {
    return 0;
  }
}

export const peakRssMb = (pid: number) => statusKb(pid, 'VmHWM') / 1024;
export const rssMb = (pid: number) => statusKb(pid, 'VmRSS') / 1024;

/** Samples VmRSS while a measurement runs; `stop()` gives the highest sample. */
export class RssSampler {
  #max = 0;
  readonly #timer: NodeJS.Timeout;

  constructor(
    readonly pid: number,
    intervalMs = 200,
  ) {
    this.#sample();
    this.#timer = setInterval(() => this.#sample(), intervalMs);
  }

  #sample(): void {
    this.#max = Math.max(this.#max, rssMb(this.pid));
  }

  stop(): number {
    clearInterval(this.#timer);
    this.#sample();
    return this.#max;
  }
}

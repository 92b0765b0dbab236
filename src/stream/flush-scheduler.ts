// Decides when queued stream frames are written. A socket write per client is the bulk of fan-out's
// cost (~10-14 µs each on the benchmark machine, whatever its size: 1,000 clients × 200 events/s
// written one by one is 200,000 writes/s, more than a core can do), so under load the events of an
// interval share one write per client. The interval follows the cost of recent flushes, so that writes
// take about a third of the time and the process keeps up instead of queueing without bound, but it is
// bounded by a latency budget: a frame's wait for its flush is what a client sees as delay.

/** Anything with frames to write; flushes of all dirty flushables run together. */
export interface Flushable {
  /** Writes what is queued; returns how many connections it wrote to. */
  flush(): number;
}

/** One flush of every dirty flushable: how long it took and how many connection writes it made. */
export interface FlushRecord {
  durationMs: number;
  writes: number;
}

/** Least time between two flushes. After a quiet spell a flush waits only for the current I/O callbacks. */
export const MIN_FLUSH_INTERVAL_MS = 10;
/** Interval = this × the flush cost, up to the budget: writes take about a third of the time at most. */
export const FLUSH_COST_MULTIPLE = 3;
/**
 * The longest a frame waits for its flush under load. A third of the time for writes would allow more
 * (at 1,000 clients a flush costs 10-30 ms), but that wait is the bulk of what a client sees as delay.
 */
export const FLUSH_LATENCY_BUDGET_MS = 30;
/** Past the budget, writes may take up to half the time, no more: the process must still keep up. */
export const OVER_BUDGET_COST_MULTIPLE = 2;
/** A bound on the interval, should flushes be far slower than usual. */
export const MAX_FLUSH_INTERVAL_MS = 200;
/**
 * The cost is the median of this many last flushes. Taken from the last flush alone, one flush stretched
 * by a garbage collection or by the process being descheduled tripled the next wait (a 51 ms flush was
 * followed by a 94 ms wait), and those waits were the p99 of stream latency.
 */
const COST_SAMPLES = 3;

/** The wait before the next flush, given what flushes cost lately. */
export function flushInterval(costMs: number): number {
  const ceiling = Math.max(FLUSH_LATENCY_BUDGET_MS, costMs * OVER_BUDGET_COST_MULTIPLE);
  return Math.min(
    MAX_FLUSH_INTERVAL_MS,
    Math.max(MIN_FLUSH_INTERVAL_MS, Math.min(ceiling, costMs * FLUSH_COST_MULTIPLE)),
  );
}

export class FlushScheduler {
  readonly #dirty = new Set<Flushable>();
  #cancel: (() => void) | null = null;
  #lastStart = -Infinity;
  /** Costs of the last flushes, newest last; none yet counts as cheap, so a slow first flush is an outlier too. */
  readonly #costs: number[] = Array.from({ length: COST_SAMPLES }, () => 0);
  readonly #listeners = new Set<(flush: FlushRecord) => void>();

  /** Calls `listener` after every flush (metrics); returns the function that stops it. */
  onFlush(listener: (flush: FlushRecord) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Flushes `target` with the others at the next flush. */
  schedule(target: Flushable): void {
    this.#dirty.add(target);
    if (this.#cancel !== null) return;
    const wait = this.#lastStart + flushInterval(this.#recentCost()) - performance.now();
    if (wait > 0) {
      const timer = setTimeout(() => this.#flushAll(), wait);
      this.#cancel = () => clearTimeout(timer);
    } else {
      // Even when due at once, wait for the current I/O callbacks: several commits may land in one turn.
      const immediate = setImmediate(() => this.#flushAll());
      this.#cancel = () => clearImmediate(immediate);
    }
  }

  /** `target` was flushed (or has gone) on its own: nothing to do for it at the next flush. */
  forget(target: Flushable): void {
    this.#dirty.delete(target);
    if (this.#dirty.size === 0 && this.#cancel !== null) {
      this.#cancel();
      this.#cancel = null;
    }
  }

  #recentCost(): number {
    const sorted = [...this.#costs].sort((a, b) => a - b);
    return sorted[Math.floor(sorted.length / 2)] ?? 0;
  }

  #flushAll(): void {
    this.#cancel = null;
    const start = performance.now();
    // A flush may forget its own entry (Set iteration allows deletion); new entries wait for the next turn.
    const targets = [...this.#dirty];
    this.#dirty.clear();
    let writes = 0;
    for (const target of targets) writes += target.flush();
    const durationMs = performance.now() - start;
    this.#lastStart = start;
    this.#costs.push(durationMs);
    if (this.#costs.length > COST_SAMPLES) this.#costs.shift();
    for (const listener of this.#listeners) listener({ durationMs, writes });
  }
}

/** One scheduler per process: the cost it measures is that of every stream's writes together. */
export const streamFlushes = new FlushScheduler();

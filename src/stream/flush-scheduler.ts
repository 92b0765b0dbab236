// Decides when queued stream frames are written. A socket write per client is the bulk of fan-out's
// cost (~14 µs each on the benchmark machine, whatever its size: 1,000 clients × 200 events/s written
// one by one is 200,000 writes/s, more than a core can do), so under load the events of an interval
// share one write per client. The interval follows the cost of the last flush, so that writes take
// about a third of the time at most and the process keeps up instead of queueing without bound: a
// flush over 1,000 clients that takes 14 ms is followed by the next one 42 ms after it started.

/** Anything with frames to write; flushes of all dirty flushables run together. */
export interface Flushable {
  flush(): void;
}

/** Least time between two flushes. After a quiet spell a flush waits only for the current I/O callbacks. */
export const MIN_FLUSH_INTERVAL_MS = 10;
/** A bound on the interval, should one flush be far slower than the next (a pause, a swapped-out page). */
export const MAX_FLUSH_INTERVAL_MS = 200;
/** Interval = this × the last flush's duration (clamped): writes take about a third of the time at most. */
export const FLUSH_COST_MULTIPLE = 3;

export class FlushScheduler {
  readonly #dirty = new Set<Flushable>();
  #cancel: (() => void) | null = null;
  #lastStart = -Infinity;
  #lastCostMs = 0;

  /** Flushes `target` with the others at the next flush. */
  schedule(target: Flushable): void {
    this.#dirty.add(target);
    if (this.#cancel !== null) return;
    const interval = Math.min(MAX_FLUSH_INTERVAL_MS, Math.max(MIN_FLUSH_INTERVAL_MS, this.#lastCostMs * FLUSH_COST_MULTIPLE));
    const wait = this.#lastStart + interval - performance.now();
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

  #flushAll(): void {
    this.#cancel = null;
    const start = performance.now();
    // A flush may forget its own entry (Set iteration allows deletion); new entries wait for the next turn.
    const targets = [...this.#dirty];
    this.#dirty.clear();
    for (const target of targets) target.flush();
    this.#lastStart = start;
    this.#lastCostMs = performance.now() - start;
  }
}

/** One scheduler per process: the cost it measures is that of every stream's writes together. */
export const streamFlushes = new FlushScheduler();

// Counts requests per key in memory and adds them to `request_count` in batches (every flush
// interval and on close), so the hot path never writes to the database for bookkeeping.
import type { FastifyBaseLogger } from 'fastify';
import type { UsageIncrement } from './api-key-repository.ts';

export type UsageSink = (increments: readonly UsageIncrement[]) => Promise<void>;

export class UsageRecorder {
  #pending = new Map<string, UsageIncrement>();
  readonly #sink: UsageSink;
  readonly #log: FastifyBaseLogger;
  readonly #timer: NodeJS.Timeout;
  /** Flushes run one after another, so one batch is never written twice or overtaken by the next. */
  #flushing: Promise<void> = Promise.resolve();
  /** A batch taken from `#pending` and not yet written (or put back): counted in neither place. */
  #inFlight = false;
  /** Batches taken so far: a read of the stored counters during which this moved may have missed one. */
  #taken = 0;

  constructor(sink: UsageSink, log: FastifyBaseLogger, intervalMs: number) {
    this.#sink = sink;
    this.#log = log;
    this.#timer = setInterval(() => void this.flush(), intervalMs);
    this.#timer.unref();
  }

  record(keyId: string, at: Date): void {
    const entry = this.#pending.get(keyId);
    if (entry) {
      entry.count++;
      entry.lastRequest = at;
    } else {
      this.#pending.set(keyId, { keyId, count: 1, lastRequest: at });
    }
  }

  /** Requests seen but not yet written for one key (lets reads show exact totals). */
  pendingFor(keyId: string): UsageIncrement | undefined {
    return this.#pending.get(keyId);
  }

  /**
   * Runs `read` (of the stored counters) while no batch is between memory and the database, so that
   * what it read plus `pendingFor` is exact. A read that a flush overlapped is run again, twice at most;
   * the last one is taken as it is (only requests made during the read can be missing from it).
   */
  async readSettled<T>(read: () => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      while (this.#inFlight) await this.#flushing;
      const taken = this.#taken;
      const result = await read();
      if (this.#taken === taken || attempt === 3) return result;
    }
  }

  flush(): Promise<void> {
    this.#flushing = this.#flushing.then(() => this.#flushOnce());
    return this.#flushing;
  }

  async #flushOnce(): Promise<void> {
    if (this.#pending.size === 0) return;
    const batch = this.#pending;
    this.#pending = new Map();
    this.#inFlight = true;
    this.#taken++;
    try {
      await this.#sink([...batch.values()]);
    } catch (error) {
      // The batch is written in one transaction, so after a failure none of it landed: put it back.
      for (const item of batch.values()) {
        const newer = this.#pending.get(item.keyId);
        if (newer) {
          newer.count += item.count;
          if (item.lastRequest > newer.lastRequest) newer.lastRequest = item.lastRequest;
        } else {
          this.#pending.set(item.keyId, item);
        }
      }
      this.#log.warn({ err: error, keys: batch.size }, 'could not write API key usage counters; will retry');
    } finally {
      this.#inFlight = false;
    }
  }

  async close(): Promise<void> {
    clearInterval(this.#timer);
    await this.flush();
  }
}

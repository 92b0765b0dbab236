// Groups successful attempts into batched writes, like a database's group commit with a linger: the
// first success after a quiet spell waits `lingerMs` for others to join it, and those that complete
// while a write is in flight go together in the next one. A success's row is written a few milliseconds
// later than it could be; its receiver has its request already, and the lease (seconds) covers the wait.
import type { SuccessOutcome } from './attempt-outcome.ts';
import type { ClaimedAttempt } from './delivery-repository.ts';

interface Pending {
  attempt: ClaimedAttempt;
  outcome: SuccessOutcome;
  done: (recorded: boolean) => void;
  fail: (error: unknown) => void;
}

export type WriteSuccesses = (settled: { attempt: ClaimedAttempt; outcome: SuccessOutcome }[]) => Promise<Set<string>>;

export interface SuccessBatcherOptions {
  /** How long the first success of a batch waits for company; 0 writes it at once. */
  lingerMs: number;
}

/** Rows per statement: 6 parameters each, well under SQLite's and PostgreSQL's parameter limits. */
const MAX_BATCH = 500;

export class SuccessBatcher {
  readonly #write: WriteSuccesses;
  readonly #lingerMs: number;
  #queue: Pending[] = [];
  #writing = false;
  #lingerTimer: NodeJS.Timeout | undefined;

  constructor(write: WriteSuccesses, options: SuccessBatcherOptions = { lingerMs: 0 }) {
    this.#write = write;
    this.#lingerMs = options.lingerMs;
  }

  /** Resolves once the success is written: true when recorded, false when the claim had been lost. */
  record(attempt: ClaimedAttempt, outcome: SuccessOutcome): Promise<boolean> {
    return new Promise((done, fail) => {
      this.#queue.push({ attempt, outcome, done, fail });
      // A write in flight picks the queue up when it ends.
      if (this.#writing) return;
      if (this.#queue.length >= MAX_BATCH || this.#lingerMs <= 0) {
        void this.#drain();
      } else {
        this.#lingerTimer ??= setTimeout(() => void this.#drain(), this.#lingerMs);
      }
    });
  }

  async #drain(): Promise<void> {
    clearTimeout(this.#lingerTimer);
    this.#lingerTimer = undefined;
    this.#writing = true;
    try {
      while (this.#queue.length > 0) {
        const batch = this.#queue.splice(0, MAX_BATCH);
        try {
          const recorded = await this.#write(batch.map(({ attempt, outcome }) => ({ attempt, outcome })));
          for (const item of batch) item.done(recorded.has(item.attempt.id));
        } catch (error) {
          for (const item of batch) item.fail(error);
        }
      }
    } finally {
      this.#writing = false;
    }
  }
}

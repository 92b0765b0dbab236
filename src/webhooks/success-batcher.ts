// Groups successful attempts into batched writes, like a database's group commit: the first success is
// written at once, and those that complete while a write is in flight go together in the next one.
import type { SuccessOutcome } from './attempt-outcome.ts';
import type { ClaimedAttempt } from './delivery-repository.ts';

interface Pending {
  attempt: ClaimedAttempt;
  outcome: SuccessOutcome;
  done: (recorded: boolean) => void;
  fail: (error: unknown) => void;
}

/** Rows per statement: 6 parameters each, well under SQLite's and PostgreSQL's parameter limits. */
const MAX_BATCH = 500;

export class SuccessBatcher {
  readonly #write: (settled: { attempt: ClaimedAttempt; outcome: SuccessOutcome }[]) => Promise<Set<string>>;
  #queue: Pending[] = [];
  #writing = false;

  constructor(write: (settled: { attempt: ClaimedAttempt; outcome: SuccessOutcome }[]) => Promise<Set<string>>) {
    this.#write = write;
  }

  /** Resolves once the success is written: true when recorded, false when the claim had been lost. */
  record(attempt: ClaimedAttempt, outcome: SuccessOutcome): Promise<boolean> {
    return new Promise((done, fail) => {
      this.#queue.push({ attempt, outcome, done, fail });
      if (!this.#writing) void this.#drain();
    });
  }

  async #drain(): Promise<void> {
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

// A write whose transaction opens only when something first needs it: a before-hook that reads or
// writes through `records()`. Where a write is otherwise one statement (PostgreSQL), a hook that only
// changes the incoming values then costs no transaction, no BEGIN, no COMMIT, no round trip of its own;
// a hook that does use `records()` gets the transaction, and the write that follows runs in it, so the
// hook's reads and writes and the write itself still commit or roll back together.
import type { ErrorCode } from '../errors/error-catalogue.ts';
import type { RecordEvent } from '../model/record-event.ts';
import type { Db } from '../store/store-dialect.ts';
import type { ChangeRunner } from './change-runner.ts';

export interface OpenTransaction {
  trx: Db;
  events: RecordEvent[];
}

type Rest<T> = (trx: Db, events: RecordEvent[]) => Promise<T>;

export class OpeningWrite<T> {
  readonly #runner: ChangeRunner;
  readonly #code: ErrorCode;
  #open: Promise<OpenTransaction> | undefined;
  #written: Promise<T> | undefined;
  #continue: ((rest: Rest<T>) => void) | undefined;
  /** The hooks' part is over: no transaction opens any more (a hook's call left running past its end). */
  #closed = false;

  /** Only for a store whose `transact` runs its work once (PostgreSQL): the work is handed over in parts. */
  constructor(runner: ChangeRunner, code: ErrorCode) {
    this.#runner = runner;
    this.#code = code;
  }

  get opened(): boolean {
    return this.#open !== undefined;
  }

  /** The transaction, begun on the first call. */
  open(): Promise<OpenTransaction> {
    if (this.#closed && this.#open === undefined) return Promise.reject(new Error('the write has ended'));
    this.#open ??= new Promise<OpenTransaction>((resolve, reject) => {
      this.#written = this.#runner.run(this.#code, (trx, events) => {
        const rest = new Promise<Rest<T>>((handOver) => {
          this.#continue = handOver;
        });
        resolve({ trx, events });
        return rest.then((finish) => finish(trx, events));
      });
      // Refused before the work began (the database unreachable): whoever waits to open hears it.
      this.#written.catch(reject);
    });
    return this.#open;
  }

  /** Runs the rest of the write in the open transaction and commits; resolves once committed. */
  async finish(rest: Rest<T>): Promise<T> {
    // A hook may have asked for the transaction without waiting for it: its BEGIN may still be under way.
    await this.#open;
    this.#continue!(rest);
    return this.#written!;
  }

  /** Ends the hooks' part of a write that never opened its transaction. */
  close(): void {
    this.#closed = true;
  }

  /** Rolls back an open transaction (a hook failed after it used it); nothing when none was opened. */
  abandon(error: unknown): void {
    this.#closed = true;
    if (this.#open === undefined) return;
    // The transaction's own failure is the hook's to report; this one only ends it.
    this.#written!.catch(() => {});
    this.#open.then(
      () => this.#continue!(() => Promise.reject(error)),
      () => {},
    );
  }
}

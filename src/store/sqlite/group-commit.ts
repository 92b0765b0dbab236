// Group commit for SQLite: the record writes that arrive together (one turn of the event loop) run in
// one transaction, each inside a savepoint of its own, and share one COMMIT. SQLite has one writer at a
// time anyway, so they would run one after another; what the group saves is the commit's cost (the
// pages every write touches, such as the index leaves and the outbox's, go to the log once per group
// instead of once per write), measured here at about half of a create's SQLite time.
//
// Each write still succeeds or fails on its own: a failed one is rolled back to its savepoint and the
// others commit. No caller hears "done" before the group's COMMIT has returned, so nothing is reported
// that is not committed; if the COMMIT fails, every write of the group fails with it.
//
// Savepoints are not free: SQLite copies every page a write changes into the savepoint's journal
// first (a create with its event and delivery touches ~16 pages), 7 µs of a 75 µs create measured in
// one process. So a group first runs without them; when one of its writes fails (rare: a unique value
// taken, a check refused), the group is rolled back and run again with savepoints, and the next few
// groups run with them straight away. A write's work may therefore run twice: it must leave nothing
// behind outside the transaction that a second run would duplicate (Store.transact says so). A write
// whose failure is its own (own-failure.ts: a hook refused it or ran out of time) is not run again: the
// careful run rejects it with that failure and runs the others.
import { CompiledQuery } from 'kysely';
import type { Db } from '../store-dialect.ts';
import { isOwnFailure } from '../own-failure.ts';

export type WriteWork<T> = (trx: Db) => Promise<T>;

interface Job {
  work: WriteWork<unknown>;
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

/** Runs a statement on the group's transaction; it may finish at once (the store's executeIn on SQLite). */
export type StatementRunner = (trx: Db, query: CompiledQuery) => unknown;

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

/** Enough to share a commit under load; a bound keeps one group from holding the connection for long. */
const MAX_GROUP = 64;
/** Groups run with savepoints from the start after one without them had to be run again. */
const CAREFUL_GROUPS_AFTER_FAILURE = 16;

const SAVEPOINT = CompiledQuery.raw('savepoint svc_write');
const RELEASE = CompiledQuery.raw('release svc_write');
const ROLLBACK_TO = CompiledQuery.raw('rollback to svc_write');

export class GroupCommit {
  readonly #db: Db;
  readonly #inTransaction: () => boolean;
  readonly #beforeGroup: () => Promise<void> | undefined;
  readonly #execute: StatementRunner;
  #queue: Job[] = [];
  #scheduled = false;
  #running = false;
  /** Groups still to run with savepoints from the start (see CAREFUL_GROUPS_AFTER_FAILURE). */
  #carefulGroups = 0;

  /**
   * `inTransaction` tells whether the connection still has a transaction open (SQLite may end one on a
   * hard error); `beforeGroup`, when it answers a promise, holds the next group until it settles (the
   * log's restart, wal-checkpointer.ts). `execute` runs the savepoint statements on the group's
   * transaction: the store's executeIn runs them at once, without Kysely's connection hand-off (a
   * write in a group of 32, with its savepoint and release: 6.5 µs of CPU through Kysely, 4 at once).
   */
  constructor(
    db: Db,
    inTransaction: () => boolean,
    beforeGroup: () => Promise<void> | undefined = () => undefined,
    execute: StatementRunner = (trx, query) => trx.executeQuery(query),
  ) {
    this.#db = db;
    this.#inTransaction = inTransaction;
    this.#beforeGroup = beforeGroup;
    this.#execute = execute;
  }

  /** Runs `work` in a transaction (shared with the writes that arrive with it) and resolves after its commit. */
  run<T>(work: WriteWork<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.#queue.push({ work, resolve: resolve as (value: unknown) => void, reject });
      this.#schedule();
    });
  }

  #schedule(): void {
    if (this.#scheduled || this.#running) return;
    this.#scheduled = true;
    // After the I/O phase: the requests read in the same turn have queued their writes by then.
    setImmediate(() => {
      this.#scheduled = false;
      void this.#drain();
    });
  }

  async #drain(): Promise<void> {
    this.#running = true;
    try {
      while (this.#queue.length > 0) {
        const pause = this.#beforeGroup();
        if (pause) await pause;
        const group = this.#queue.splice(0, MAX_GROUP);
        await this.#runGroup(group);
      }
    } finally {
      this.#running = false;
    }
  }

  async #runGroup(group: Job[]): Promise<void> {
    if (group.length === 1) {
      // Alone, a write is its own transaction: no savepoint needed to keep its failure to itself.
      const job = group[0]!;
      await this.#db.transaction().execute(job.work).then(job.resolve, job.reject);
      return;
    }
    /** The failure of the together-run, when it was its write's own: that write is not run again. */
    let own: { job: Job; error: unknown } | undefined;
    if (this.#carefulGroups > 0) {
      this.#carefulGroups--;
    } else {
      const together = await this.#runTogether(group);
      if (together.values) {
        for (let i = 0; i < group.length; i++) group[i]!.resolve(together.values[i]);
        return;
      }
      if (together.failed && isOwnFailure(together.failed.error)) own = together.failed;
      this.#carefulGroups = CAREFUL_GROUPS_AFTER_FAILURE;
    }
    const ownFailure = own;
    const outcomes: Outcome[] = [];
    let unrun: Job[] = [];
    let ended: { error: unknown } | undefined;
    try {
      await this.#db.transaction().execute(async (trx) => {
        for (let i = 0; i < group.length; i++) {
          const outcome: Outcome =
            ownFailure !== undefined && group[i] === ownFailure.job
              ? { ok: false, error: ownFailure.error }
              : await this.#runInSavepoint(trx, group[i]!);
          outcomes.push(outcome);
          if (!outcome.ok && !this.#inTransaction()) {
            // SQLite ended the whole transaction (a full disk, an I/O error): what ran before is gone.
            unrun = group.slice(i + 1);
            ended = { error: outcome.error };
            throw outcome.error;
          }
        }
      });
    } catch (caught) {
      // Kysely's ROLLBACK fails too when SQLite has already ended the transaction: keep the cause.
      const error = ended ? ended.error : caught;
      // The group did not commit: writes that had succeeded fail with the reason; the ones that had
      // not run yet go to the next group.
      for (let i = 0; i < outcomes.length; i++) {
        const outcome = outcomes[i]!;
        group[i]!.reject(outcome.ok ? error : outcome.error);
      }
      for (let i = outcomes.length; i < group.length - unrun.length; i++) group[i]!.reject(error);
      this.#queue.unshift(...unrun);
      return;
    }
    for (let i = 0; i < group.length; i++) {
      const outcome = outcomes[i]!;
      if (outcome.ok) group[i]!.resolve(outcome.value);
      else group[i]!.reject(outcome.error);
    }
  }

  /**
   * The group's writes one after another in one transaction, no savepoints: their results once it has
   * committed, or undefined when a write or the commit failed (then nothing of it is kept).
   */
  async #runTogether(group: Job[]): Promise<{ values?: unknown[]; failed?: { job: Job; error: unknown } }> {
    const values: unknown[] = [];
    let failed: { job: Job; error: unknown } | undefined;
    try {
      await this.#db.transaction().execute(async (trx) => {
        for (const job of group) {
          try {
            values.push(await job.work(trx));
          } catch (error) {
            failed = { job, error };
            throw error;
          }
        }
      });
      return { values };
    } catch {
      // Kysely rolled it back (or SQLite had already ended it): the careful run finds out who failed and why.
      return failed ? { failed } : {};
    }
  }

  async #runInSavepoint(trx: Db, job: Job): Promise<Outcome> {
    await this.#execute(trx, SAVEPOINT);
    try {
      const value = await job.work(trx);
      await this.#execute(trx, RELEASE);
      return { ok: true, value };
    } catch (error) {
      if (this.#inTransaction()) {
        await this.#execute(trx, ROLLBACK_TO);
        await this.#execute(trx, RELEASE);
      }
      return { ok: false, error };
    }
  }
}

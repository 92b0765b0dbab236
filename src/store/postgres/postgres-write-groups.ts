// Group commit for PostgreSQL: the record writes that arrive together (one turn of the event loop)
// share one transaction, so a pass of N writes costs one BEGIN and one COMMIT instead of N of each. A
// round trip is most of a write's cost to svc (60-150 µs of CPU each on the bench machine; a create was
// four of them: BEGIN, the row, the event with its deliveries, COMMIT).
//
// A savepoint per write would be a round trip of its own, the very thing the group saves, so the group
// is optimistic instead:
// - a write that fails before changing anything (failedBeforeWriting: a missing or forbidden target, a
//   reference to nothing) is answered at once and the group goes on, as only its reads ran;
// - any other failure rolls the group back. The failed write then runs alone, and its own outcome is its
//   answer; the others run again as one group, or each alone if that group fails too.
// No write is reported before the COMMIT has returned. If BEGIN or COMMIT fails, every write of the
// group fails with it, and none runs again (a failed COMMIT may still have committed).
//
// Groups run side by side, up to MAX_IN_FLIGHT connections. A group holds the row locks its writes
// take until it commits, so two groups could wait on each other in a cycle, which PostgreSQL breaks only
// after deadlock_timeout (1 s by default, settable by superusers only). A group therefore waits at most
// LOCK_TIMEOUT for a lock (SET LOCAL lock_timeout, sent with its BEGIN: no round trip of its own); past
// it the group fails as above, and the write alone waits as long as it takes, as it always did.
import { CompiledQuery } from 'kysely';
import type { Db } from '../store-dialect.ts';
import { hasFailedBeforeWriting } from '../write-failure.ts';
import { writeJob, type WriteJob, type WriteWork } from '../write-job.ts';

/** A bound keeps one group from holding its row locks and its connection for long. */
const MAX_GROUP = 32;
/** Connections groups may hold at once (the pool keeps the rest for reads). */
const MAX_IN_FLIGHT = 4;
/** Longer than a full group takes (32 writes of three statements), short against deadlock_timeout. */
const LOCK_TIMEOUT = '200ms';

const BEGIN_GROUP = CompiledQuery.raw(`begin; set local lock_timeout = '${LOCK_TIMEOUT}'`);
const COMMIT = CompiledQuery.raw('commit');
const ROLLBACK = CompiledQuery.raw('rollback');

export class PostgresWriteGroups {
  readonly #db: Db;
  #queue: WriteJob[] = [];
  #scheduled = false;
  #running = 0;

  constructor(db: Db) {
    this.#db = db;
  }

  /** Runs `work` in a transaction (shared with the writes that arrive with it) and resolves after its commit. */
  run<T>(work: WriteWork<T>): Promise<T> {
    const { job, done } = writeJob(work);
    this.#queue.push(job);
    if (!this.#scheduled) {
      this.#scheduled = true;
      // After the I/O phase: the requests read in the same turn have queued their writes by then.
      setImmediate(() => {
        this.#scheduled = false;
        this.#startGroups();
      });
    }
    return done;
  }

  #startGroups(): void {
    while (this.#queue.length > 0 && this.#running < MAX_IN_FLIGHT) {
      const group = this.#queue.splice(0, MAX_GROUP);
      this.#running++;
      void this.#runGroup(group, true).finally(() => {
        this.#running--;
        this.#startGroups();
      });
    }
  }

  /** Settles every job of `group`; never rejects. */
  async #runGroup(group: WriteJob[], mayRegroup: boolean): Promise<void> {
    if (group.length === 1) return this.#runAlone(group[0]!);
    const done: Array<{ job: WriteJob; value: unknown }> = [];
    const answered = new Set<WriteJob>();
    let failed: WriteJob | undefined;
    try {
      await this.#db.connection().execute(async (connection) => {
        await connection.executeQuery(BEGIN_GROUP);
        try {
          for (const job of group) {
            try {
              done.push({ job, value: await job.work(connection) });
            } catch (error) {
              if (!hasFailedBeforeWriting(error)) {
                failed = job;
                throw error;
              }
              answered.add(job);
              job.reject(error);
            }
          }
        } catch (error) {
          await connection.executeQuery(ROLLBACK).catch(() => undefined);
          throw error;
        }
        await connection.executeQuery(COMMIT);
      });
    } catch (error) {
      const unanswered = group.filter((job) => !answered.has(job));
      if (!failed) {
        for (const job of unanswered) job.reject(error);
        return;
      }
      const rest = unanswered.filter((job) => job !== failed);
      await this.#runAlone(failed);
      if (mayRegroup) await this.#runGroup(rest, false);
      else await Promise.all(rest.map((job) => this.#runAlone(job)));
      return;
    }
    for (const { job, value } of done) job.resolve(value);
  }

  #runAlone(job: WriteJob): Promise<void> {
    return this.#db.transaction().execute(job.work).then(job.resolve, job.reject);
  }
}

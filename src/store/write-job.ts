// A record write waiting for its turn in a group commit (sqlite/write-groups.ts): the work to run in the
// group's transaction and its caller's promise.
import type { Db } from './store-dialect.ts';

export type WriteWork<T> = (trx: Db) => Promise<T>;

export interface WriteJob {
  work: WriteWork<unknown>;
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

/** A job for `work` and the promise its caller awaits. */
export function writeJob<T>(work: WriteWork<T>): { job: WriteJob; done: Promise<T> } {
  let job!: WriteJob;
  const done = new Promise<T>((resolve, reject) => {
    job = { work, resolve: resolve as (value: unknown) => void, reject };
  });
  return { job, done };
}

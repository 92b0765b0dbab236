// Claims, answers and releases Idempotency-Keys in svc_idempotency_keys (docs/records.md, "Idempotent
// creates"). A request claims its key before it writes: a row in state 'running' under a lease, which
// makes a retry meanwhile a 409. The answer is stored by the request's own write transaction where it
// has one (a record create), so a committed write always has its answer and a key left 'running' means
// the write did not commit: a retry after the lease runs again, and cannot write twice.
import { randomUUID } from 'node:crypto';
import { ApiError } from '../errors/api-error.ts';
import type { IdempotencyConfig } from '../config/config-types.ts';
import type { Db, StoreDialect } from '../store/store-dialect.ts';
import { uuidv7 } from '../store/uuid-v7.ts';
import { IDEMPOTENCY_TABLE } from './idempotency-table.ts';
import type { StoredResponse } from './stored-response.ts';

/** One request's use of a key: who sends it, the key, and what the request was (idempotency/request-fingerprint.ts). */
export interface KeyUse {
  caller: string;
  key: string;
  fingerprint: string;
}

/** What a claim found: the key is this request's to run under (`attempt`), or an answer to replay. */
export type ClaimOutcome = { kind: 'run'; attempt: string } | { kind: 'replay'; response: StoredResponse };

type KeyRow = {
  attempt: string;
  fingerprint: string;
  state: string;
  lease_until: string | null;
  status: number | null;
  headers: string | null;
  body: string | null;
  created_at: string;
};

/** Claims race on other nodes; a few rounds settle any of them (each round sees a row that changed). */
const CLAIM_ROUNDS = 5;

export class IdempotencyStore {
  readonly #db: Db;
  readonly #dialect: StoreDialect;
  readonly #settings: IdempotencyConfig;

  constructor(db: Db, dialect: StoreDialect, settings: IdempotencyConfig) {
    this.#db = db;
    this.#dialect = dialect;
    this.#settings = settings;
  }

  get settings(): IdempotencyConfig {
    return this.#settings;
  }

  /**
   * The key for this request, or the answer a first request with it got. 422 IDEMPOTENCY_KEY_REUSED
   * when the key was used for another request; 409 IDEMPOTENCY_KEY_IN_USE while that one still runs.
   * A key older than `ttlMs`, or held past its lease by a request that never finished, is taken over.
   */
  async claim(use: KeyUse, now = Date.now()): Promise<ClaimOutcome> {
    for (let round = 0; round < CLAIM_ROUNDS; round++) {
      const row = await this.#read(use);
      const attempt = randomUUID();
      const fresh = this.#runningRow(use, attempt, now);
      if (!row) {
        try {
          await this.#db.insertInto(IDEMPOTENCY_TABLE).values({ id: uuidv7(), caller: use.caller, idempotency_key: use.key, ...fresh }).execute();
          return { kind: 'run', attempt };
        } catch (error) {
          // Another request claimed the key first: the next round reads its row.
          if (this.#dialect.isUniqueViolation(error)) continue;
          throw error;
        }
      }
      const cutoff = iso(now - this.#settings.ttlMs);
      const leaseEnd = iso(now);
      // A running request is never taken over while its lease lasts, however old its key.
      const expired = row.state === 'done' && row.created_at < cutoff;
      const abandoned = row.state === 'running' && (row.lease_until === null || row.lease_until < leaseEnd);
      if (expired || abandoned) {
        // The same conditions in the statement: on PostgreSQL it may wait for the request's write to
        // commit its answer, and must then find the row no longer free rather than overwrite the answer.
        const taken = await this.#db
          .updateTable(IDEMPOTENCY_TABLE)
          .set({ ...fresh, status: null, headers: null, body: null })
          .where('caller', '=', use.caller)
          .where('idempotency_key', '=', use.key)
          .where('attempt', '=', row.attempt)
          .where((eb) =>
            eb.or([
              eb.and([eb('state', '=', 'done'), eb('created_at', '<', cutoff)]),
              eb.and([eb('state', '=', 'running'), eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', leaseEnd)])]),
            ]),
          )
          .executeTakeFirst();
        if (Number(taken.numUpdatedRows) === 1) return { kind: 'run', attempt };
        continue;
      }
      if (row.fingerprint !== use.fingerprint) throw reused();
      if (row.state === 'running') throw inUse();
      return { kind: 'replay', response: { status: Number(row.status), headers: JSON.parse(row.headers ?? '{}') as Record<string, string>, body: row.body ?? '' } };
    }
    throw inUse();
  }

  /**
   * Stores the answer of the request that holds the key, on `db`: the request's write transaction, so
   * that the two commit together. Throws 409 when the key is no longer this request's (its lease ran
   * out and a retry took it over): the transaction then rolls back and only the retry writes.
   */
  async complete(db: Db, use: KeyUse, attempt: string, response: StoredResponse): Promise<void> {
    const stored = await db
      .updateTable(IDEMPOTENCY_TABLE)
      .set({ state: 'done', lease_until: null, status: response.status, headers: JSON.stringify(response.headers), body: response.body })
      .where('caller', '=', use.caller)
      .where('idempotency_key', '=', use.key)
      .where('attempt', '=', attempt)
      .where('state', '=', 'running')
      .executeTakeFirst();
    if (Number(stored.numUpdatedRows) !== 1) {
      throw new ApiError('IDEMPOTENCY_KEY_IN_USE', 'The request took longer than its Idempotency-Key lease and a retry took the key over; this one wrote nothing');
    }
  }

  /** Gives the key back after the request failed: a retry runs again. */
  async release(use: KeyUse, attempt: string): Promise<void> {
    await this.#db
      .deleteFrom(IDEMPOTENCY_TABLE)
      .where('caller', '=', use.caller)
      .where('idempotency_key', '=', use.key)
      .where('attempt', '=', attempt)
      .where('state', '=', 'running')
      .execute();
  }

  /** The same, on its own, for a request whose write has no transaction to share (POST /token). */
  completeAlone(use: KeyUse, attempt: string, response: StoredResponse): Promise<void> {
    return this.complete(this.#db, use, attempt, response);
  }

  async #read(use: KeyUse): Promise<KeyRow | undefined> {
    const row = await this.#db
      .selectFrom(IDEMPOTENCY_TABLE)
      .select(['attempt', 'fingerprint', 'state', 'lease_until', 'status', 'headers', 'body', 'created_at'])
      .where('caller', '=', use.caller)
      .where('idempotency_key', '=', use.key)
      .executeTakeFirst();
    return row as KeyRow | undefined;
  }

  #runningRow(use: KeyUse, attempt: string, now: number) {
    return { fingerprint: use.fingerprint, attempt, state: 'running', lease_until: iso(now + this.#settings.leaseMs), created_at: iso(now) };
  }
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

function reused(): ApiError {
  return new ApiError('IDEMPOTENCY_KEY_REUSED', {
    detail: 'This Idempotency-Key was used for another request (another body, path or role); use a new key for a new request',
    parameter: 'Idempotency-Key',
  });
}

function inUse(): ApiError {
  return new ApiError('IDEMPOTENCY_KEY_IN_USE', {
    detail: 'A request with this Idempotency-Key is still running; retry when it has finished',
    parameter: 'Idempotency-Key',
  });
}

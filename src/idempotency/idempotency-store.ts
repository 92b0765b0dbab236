// Claims, answers and releases Idempotency-Keys in svc_idempotency_keys (docs/records.md, "Idempotent
// creates"). Two ways, after what the request's work is:
//
// - Work that is one transaction (a create, an upsert, an atomic batch) claims its key inside it
//   (`runInWrite`): the claim row is inserted first and turned into the answer last, and the two commit
//   with the write or not at all. Another request never sees the claim before it commits: its own
//   claim insert waits on the uncommitted row (PostgreSQL's unique index makes it wait for the first
//   transaction's end), then finds the answer (the first committed: replay) or no row (it rolled back,
//   as it does when its node dies and the connection drops: this one runs). A wait is bounded
//   (CLAIM_WAIT_MS); past it the first is really still running and the answer is 409. There is no
//   moment in which both can run or neither is told: the unique index admits one uncommitted claim,
//   and its outcome decides the other's. Requests on one node wait for each other in memory first, so
//   on SQLite, whose writes share one connection, a claim never meets another's uncommitted row.
// - Work that is not (POST /token, issued by the identity component in its own transaction) claims
//   first, in a row of its own under a lease: a retry meanwhile is a 409, and a key left 'running' by a
//   request that died is taken over once the lease ends.
import { randomUUID } from 'node:crypto';
import { ApiError } from '../errors/api-error.ts';
import type { IdempotencyConfig } from '../config/config-types.ts';
import { LOCK_WAIT_EXCEEDED, type Db, type StoreDialect } from '../store/store-dialect.ts';
import { uuidv7 } from '../store/uuid-v7.ts';
import { IDEMPOTENCY_TABLE } from './idempotency-table.ts';
import { KeyAnswered } from './key-answered.ts';
import type { StoredResponse } from './stored-response.ts';

/** One request's use of a key: who sends it, the key, and what the request was (idempotency/request-fingerprint.ts). */
export interface KeyUse {
  caller: string;
  key: string;
  fingerprint: string;
}

/** What a claim found: the key is this request's to run under (`attempt`), or an answer to replay. */
export type ClaimOutcome = { kind: 'run'; attempt: string } | { kind: 'replay'; response: StoredResponse };

/** The columns a claim sets. */
type RunningRow = { fingerprint: string; attempt: string; state: 'running'; lease_until: string; created_at: string };

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

/** What a write run under a key does in its transaction (`IdempotencyStore.runInWrite`). */
export interface KeyedWriteSteps {
  /** The transaction's first step: claims the key. */
  first(trx: Db): Promise<void>;
  /** The transaction's last step: stores the write's answer under the claim. */
  complete(trx: Db, response: StoredResponse): Promise<void>;
}

/** What a write run under its key answered: its own answer, or the one kept for the key (`replayed`). */
export interface WriteOutcome {
  response: StoredResponse;
  replayed: boolean;
}

/** Claims race on other nodes; a few rounds settle any of them (each round sees a row that changed). */
const CLAIM_ROUNDS = 5;

/**
 * How long a request waits for another holding the same key to finish (its write to commit or roll
 * back) before answering 409. A create's transaction takes milliseconds; one that holds its key longer
 * is really still running. A dead node's transaction ends when its connection drops, so a retry after
 * a crash waits about as long as the database takes to notice.
 */
export const CLAIM_WAIT_MS = 3000;

export class IdempotencyStore {
  readonly #db: Db;
  readonly #dialect: StoreDialect;
  readonly #settings: IdempotencyConfig;
  /** Keys whose write runs on this node now, by caller and key: a second request waits for the first. */
  readonly #inFlight = new Map<string, Promise<void>>();

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
      const row = await this.#read(this.#db, use);
      const attempt = randomUUID();
      const fresh = this.#runningRow(use, attempt, now);
      if (!row) {
        try {
          await this.#db
            .insertInto(IDEMPOTENCY_TABLE)
            .values({ id: uuidv7(), caller: use.caller, idempotency_key: use.key, ...fresh })
            .execute();
          return { kind: 'run', attempt };
        } catch (error) {
          // Another request claimed the key first: the next round reads its row.
          if (this.#dialect.isUniqueViolation(error)) continue;
          throw error;
        }
      }
      if (this.#free(row, now)) {
        if (await this.#takeOver(this.#db, use, row.attempt, fresh, now)) return { kind: 'run', attempt };
        continue;
      }
      return { kind: 'replay', response: this.#answerOf(row, use) };
    }
    throw inUse();
  }

  /**
   * Takes a free key over for a new attempt, on `db`. The same conditions as #free in the statement:
   * on PostgreSQL it may wait for another request's write to commit its answer, and must then find the
   * row no longer free rather than overwrite the answer.
   */
  async #takeOver(db: Db, use: KeyUse, previous: string, fresh: RunningRow, now: number): Promise<boolean> {
    const cutoff = iso(now - this.#settings.ttlMs);
    const leaseEnd = iso(now);
    const taken = await db
      .updateTable(IDEMPOTENCY_TABLE)
      .set({ ...fresh, status: null, headers: null, body: null })
      .where('caller', '=', use.caller)
      .where('idempotency_key', '=', use.key)
      .where('attempt', '=', previous)
      .where((eb) =>
        eb.or([
          eb.and([eb('state', '=', 'done'), eb('created_at', '<', cutoff)]),
          eb.and([
            eb('state', '=', 'running'),
            eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', leaseEnd)]),
          ]),
        ]),
      )
      .executeTakeFirst();
    return Number(taken.numUpdatedRows) === 1;
  }

  /**
   * Runs a write that is one transaction under its key (see the top of this file). `write` runs
   * `steps.first` as its transaction's first step and `steps.complete` with its answer as its last, on
   * the same transaction. `first` throws KeyAnswered when an earlier request's answer committed
   * meanwhile (the write then rolls back and that answer is replayed), 409 IDEMPOTENCY_KEY_IN_USE after
   * CLAIM_WAIT_MS.
   */
  async runInWrite(use: KeyUse, write: (steps: KeyedWriteSteps) => Promise<StoredResponse>): Promise<WriteOutcome> {
    const id = `${use.caller}\u0000${use.key}`;
    for (let round = 0; round < CLAIM_ROUNDS; round++) {
      const running = this.#inFlight.get(id);
      if (running) {
        if (!(await settlesWithin(running, CLAIM_WAIT_MS))) throw inUse();
        continue;
      }
      const kept = await this.#lookup(use, Date.now());
      if (kept) return { response: kept, replayed: true };
      // Another request of this node may have started while the lookup ran.
      if (this.#inFlight.has(id)) continue;
      let settle!: () => void;
      this.#inFlight.set(id, new Promise<void>((resolve) => (settle = resolve)));
      try {
        return { response: await write(this.#stepsFor(use)), replayed: false };
      } catch (error) {
        if (error instanceof KeyAnswered) return { response: error.response, replayed: true };
        throw error;
      } finally {
        this.#inFlight.delete(id);
        settle();
      }
    }
    throw inUse();
  }

  /** The claim and the answer of one write, tied to each other by the attempt the claim took. */
  #stepsFor(use: KeyUse): KeyedWriteSteps {
    let attempt: string | undefined;
    return {
      first: async (trx) => {
        attempt = await this.#claimIn(trx, use, Date.now());
      },
      complete: (trx, response) => {
        if (attempt === undefined) throw new Error('An idempotent write stored its answer before claiming its key');
        return this.complete(trx, use, attempt, response);
      },
    };
  }

  /**
   * Before a write's transaction: the answer kept for the key (to replay), a refusal (another request
   * under the key, or a lease still held), or undefined when the key is to be claimed in the write.
   */
  async #lookup(use: KeyUse, now: number): Promise<StoredResponse | undefined> {
    const row = await this.#read(this.#db, use);
    if (!row || this.#free(row, now)) return undefined;
    return this.#answerOf(row, use);
  }

  /** The answer `row` holds for `use`; throws when it is another request's or still running. */
  #answerOf(row: KeyRow, use: KeyUse): StoredResponse {
    if (row.fingerprint !== use.fingerprint) throw reused();
    if (row.state === 'running') throw inUse();
    return {
      status: Number(row.status),
      headers: JSON.parse(row.headers ?? '{}') as Record<string, string>,
      body: row.body ?? '',
    };
  }

  /** An answer past its time to live, or a lease that ran out: the key may be taken over. */
  #free(row: KeyRow, now: number): boolean {
    const expired = row.state === 'done' && row.created_at < iso(now - this.#settings.ttlMs);
    const abandoned = row.state === 'running' && (row.lease_until === null || row.lease_until < iso(now));
    return expired || abandoned;
  }

  /** Claims the key inside the write's transaction `trx`; answers the attempt that holds it. */
  async #claimIn(trx: Db, use: KeyUse, now: number): Promise<string> {
    const attempt = randomUUID();
    const fresh = this.#runningRow(use, attempt, now);
    for (let round = 0; round < CLAIM_ROUNDS; round++) {
      // Waits while another transaction holds an uncommitted claim of the key, then inserts (it rolled
      // back) or does nothing (it committed).
      const inserted = await this.#dialect.withLockWait(trx, CLAIM_WAIT_MS, () =>
        trx
          .insertInto(IDEMPOTENCY_TABLE)
          .values({ id: uuidv7(), caller: use.caller, idempotency_key: use.key, ...fresh })
          .onConflict((oc) => oc.columns(['caller', 'idempotency_key']).doNothing())
          .executeTakeFirst(),
      );
      if (inserted === LOCK_WAIT_EXCEEDED) throw inUse();
      if (Number(inserted.numInsertedOrUpdatedRows ?? 0n) === 1) return attempt;
      const row = await this.#read(trx, use);
      // Pruned or given back in between: insert again.
      if (!row) continue;
      if (!this.#free(row, now)) throw new KeyAnswered(this.#answerOf(row, use));
      const taken = await this.#dialect.withLockWait(trx, CLAIM_WAIT_MS, () =>
        this.#takeOver(trx, use, row.attempt, fresh, now),
      );
      if (taken === LOCK_WAIT_EXCEEDED) throw inUse();
      if (taken) return attempt;
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
      .set({
        state: 'done',
        lease_until: null,
        status: response.status,
        headers: JSON.stringify(response.headers),
        body: response.body,
      })
      .where('caller', '=', use.caller)
      .where('idempotency_key', '=', use.key)
      .where('attempt', '=', attempt)
      .where('state', '=', 'running')
      .executeTakeFirst();
    if (Number(stored.numUpdatedRows) !== 1) {
      throw new ApiError(
        'IDEMPOTENCY_KEY_IN_USE',
        'The request took longer than its Idempotency-Key lease and a retry took the key over; this one wrote nothing',
      );
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

  async #read(db: Db, use: KeyUse): Promise<KeyRow | undefined> {
    const row = await db
      .selectFrom(IDEMPOTENCY_TABLE)
      .select(['attempt', 'fingerprint', 'state', 'lease_until', 'status', 'headers', 'body', 'created_at'])
      .where('caller', '=', use.caller)
      .where('idempotency_key', '=', use.key)
      .executeTakeFirst();
    return row as KeyRow | undefined;
  }

  #runningRow(use: KeyUse, attempt: string, now: number): RunningRow {
    return {
      fingerprint: use.fingerprint,
      attempt,
      state: 'running',
      lease_until: iso(now + this.#settings.leaseMs),
      created_at: iso(now),
    };
  }
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

function reused(): ApiError {
  return new ApiError('IDEMPOTENCY_KEY_REUSED', {
    detail:
      'This Idempotency-Key was used for another request (another body, path or role); use a new key for a new request',
    parameter: 'Idempotency-Key',
  });
}

function inUse(): ApiError {
  return new ApiError('IDEMPOTENCY_KEY_IN_USE', {
    detail: 'A request with this Idempotency-Key is still running; retry when it has finished',
    parameter: 'Idempotency-Key',
  });
}

/** Whether `running` settles within `ms` (its outcome does not matter here: the key is read again). */
function settlesWithin(running: Promise<void>, ms: number): Promise<boolean> {
  return new Promise<boolean>((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    void running.then(() => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

// The claim statement, built and compiled by Kysely once per number of excluded targets and then run
// with fresh values: a busy worker claims many times a second, and building the nested UPDATE … WHERE id
// IN (SELECT …) cost more than running it (~0.25 ms against ~0.1 ms on SQLite). The SQL text stays the
// same, so SQLite's statement cache and PostgreSQL's named statements are reused too.
import type { CompiledQuery, ExpressionBuilder } from 'kysely';
import { keyInLockedBatch } from '../../store/key-in-locked-batch.ts';
import type { Db, DynamicSchema, StoreDialect } from '../../store/store-dialect.ts';
import { DELIVERIES_TABLE } from '../webhook-tables.ts';

export interface ClaimValues {
  /** Encoded timestamps. */
  now: unknown;
  claimedUntil: unknown;
  token: string;
  excludeTargets: readonly string[];
  limit: number;
}

export type ClaimedRow = Record<
  'id' | 'webhook_id' | 'event_id' | 'event_type' | 'attempt_number' | 'request_payload' | 'target_url' | 'target_host',
  unknown
>;

/** Marks where each value goes; a parameter that is none of these is a constant of the statement. */
const SLOT_PREFIX = '\u0000svc:claim:';
const slot = (name: string) => `${SLOT_PREFIX}${name}\u0000`;
const SLOTS = { now: slot('now'), until: slot('until'), token: slot('token'), limit: slot('limit') };
const excluded = (index: number) => slot(`exclude:${index}`);

/** How many exclusion counts keep their compiled statement (a worker has as many as busy targets). */
const MAX_SHAPES = 64;

export class ClaimStatement {
  readonly #db: Db;
  readonly #dialect: StoreDialect;
  readonly #shapes = new Map<number, CompiledQuery<ClaimedRow>>();

  constructor(db: Db, dialect: StoreDialect) {
    this.#db = db;
    this.#dialect = dialect;
  }

  /** The statement with `values` in place: run it with `db.executeQuery()`. */
  bind(values: ClaimValues): CompiledQuery<ClaimedRow> {
    const count = values.excludeTargets.length;
    let compiled = this.#shapes.get(count);
    if (!compiled) {
      compiled = this.#build(count);
      if (this.#shapes.size >= MAX_SHAPES) this.#shapes.clear();
      this.#shapes.set(count, compiled);
    }
    const parameters = compiled.parameters.map((parameter) => {
      if (typeof parameter !== 'string' || !parameter.startsWith(SLOT_PREFIX)) return parameter;
      if (parameter === SLOTS.now) return values.now;
      if (parameter === SLOTS.until) return values.claimedUntil;
      if (parameter === SLOTS.token) return values.token;
      if (parameter === SLOTS.limit) return values.limit;
      return values.excludeTargets[Number(parameter.slice(SLOT_PREFIX.length + 'exclude:'.length, -1))];
    });
    return { ...compiled, parameters };
  }

  /**
   * Up to `limit` due attempts, unclaimed or with an expired lease, oldest due first, skipping the
   * excluded targets. PostgreSQL skips rows another worker is claiming (SKIP LOCKED); SQLite serialises
   * writers, so the single UPDATE … RETURNING is already atomic.
   */
  #build(excludedCount: number): CompiledQuery<ClaimedRow> {
    const db = this.#db;
    const unclaimed = (eb: ExpressionBuilder<DynamicSchema, typeof DELIVERIES_TABLE>) =>
      eb.or([eb('claimed_until', 'is', null), eb('claimed_until', '<=', SLOTS.now)]);
    let candidates = db.selectFrom(DELIVERIES_TABLE).select('id').where('due_at', '<=', SLOTS.now).where(unclaimed);
    if (excludedCount > 0)
      candidates = candidates.where(
        'target_host',
        'not in',
        Array.from({ length: excludedCount }, (_, i) => excluded(i)),
      );
    // The limit is a parameter too; Kysely types it as a number, the slot is swapped for one at bind time.
    candidates = candidates.orderBy('due_at').limit(SLOTS.limit as unknown as number);
    const claim = db.updateTable(DELIVERIES_TABLE).set({ claimed_until: SLOTS.until, claim_token: SLOTS.token });
    return (
      (
        this.#dialect.supportsSkipLocked
          ? // Locked candidates are taken once (key-in-locked-batch.ts): never more than the limit.
            claim.where(keyInLockedBatch('id', candidates.forUpdate().skipLocked()))
          : claim.where('id', 'in', candidates)
      )
        // Repeated outside the subquery: a row another statement claimed after this one's snapshot is left alone.
        .where(unclaimed)
        .returning([
          'id',
          'webhook_id',
          'event_id',
          'event_type',
          'attempt_number',
          'request_payload',
          'target_url',
          'target_host',
        ])
        .compile() as CompiledQuery<ClaimedRow>
    );
  }
}

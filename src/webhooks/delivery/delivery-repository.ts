// Reads and writes svc_webhook_deliveries: queueing attempts, claiming due ones under a lease, settling
// them, and the admin listings. Every write that settles an attempt checks the claim token, so a worker
// that lost its lease cannot overwrite the attempt's record.
import { CompiledQuery, sql } from 'kysely';
import type { Store } from '../../store/create-store.ts';
import type { Db } from '../../store/store-dialect.ts';
import type { StorageKind } from '../../store/storage-kind.ts';
import { uuidv7, uuidv7TimeFloor } from '../../store/uuid-v7.ts';
import { EVENTS_TABLE } from '../../events/outbox.ts';
import type { RecordEvent } from '../../model/record-event.ts';
import { insertStatement, type TableRows } from '../../store/write-statements.ts';
import type { AttemptOutcome, SuccessOutcome } from './attempt-outcome.ts';
import { ClaimStatement } from './claim-statement.ts';
import { payloadForAttempt } from './delivery-payload.ts';
import type { Page } from '../subscriptions/subscription-repository.ts';
import { targetUrlOf } from '../targets/target-url.ts';
import { DELIVERIES_TABLE, WEBHOOKS_TABLE } from '../webhook-tables.ts';
import type { DeliveryStatus, WebhookDelivery } from './webhook-delivery.ts';

/** Rows per statement when releasing claims, well under SQLite's bound-parameter limit. */
const RELEASE_CHUNK = 500;
/** Outbox rows one catch-up step looks at; a busier window is read in several steps. */
const CATCH_UP_PAGE = 500;

/** An attempt to be sent, as queued. */
export interface QueuedAttempt {
  id: string;
  webhookId: string;
  eventId: string;
  eventType: string;
  attemptNumber: number;
  requestPayload: string;
  targetUrl: string;
  dueAt: string;
  /** Written already claimed by this process's worker (DeliveryWorker.leaseQueued). */
  claim?: { token: string; until: number } | undefined;
}

/** An attempt a worker holds under a lease. */
export interface ClaimedAttempt {
  id: string;
  webhookId: string;
  eventId: string;
  eventType: string;
  attemptNumber: number;
  requestPayload: string;
  targetUrl: string;
  targetHost: string;
  claimToken: string;
  /** Epoch milliseconds. */
  claimedUntil: number;
}

export interface DeliveryFilter extends Page {
  status?: DeliveryStatus;
  eventId?: string;
}

/** host:port of a target url: the unit of per-target concurrency. */
export function targetHostOf(url: string): string {
  return targetUrlOf(url).hostPort;
}

export class DeliveryRepository {
  readonly #store: Store;
  readonly #claim: ClaimStatement;
  /** The settle statement's SQL text per batch size (at most SuccessBatcher's largest batch). */
  readonly #settleTexts = new Map<number, string>();

  constructor(store: Store) {
    this.#store = store;
    this.#claim = new ClaimStatement(store.db, store.dialect);
  }

  /** Inserts pending attempts; `db` is the caller's transaction when queueing inside a record write. */
  async queue(attempts: readonly QueuedAttempt[], db: Db = this.#store.db): Promise<void> {
    if (attempts.length === 0) return;
    const { table, rows } = this.rowsOf(attempts);
    await this.#store.executeIn(db, insertStatement(this.#store.db, table, rows));
  }

  /** The rows that queue `attempts`, for a caller that writes them with other rows (RecordService.onEventRows). */
  rowsOf(attempts: readonly QueuedAttempt[]): TableRows {
    const { encode } = this.#store.dialect;
    const createdAt = encode('timestamp', new Date().toISOString());
    const rows = attempts.map((a) => {
      const dueAt = encode('timestamp', a.dueAt);
      return {
        id: a.id,
        webhook_id: a.webhookId,
        event_id: a.eventId,
        event_type: a.eventType,
        status: 'pending',
        request_payload: a.requestPayload,
        attempt_number: a.attemptNumber,
        next_retry_at: dueAt,
        created_at: createdAt,
        target_url: a.targetUrl,
        target_host: targetHostOf(a.targetUrl),
        due_at: dueAt,
        claimed_until: a.claim ? encode('timestamp', new Date(a.claim.until).toISOString()) : null,
        claim_token: a.claim?.token ?? null,
      };
    });
    return { table: DELIVERIES_TABLE, rows };
  }

  /**
   * Claims up to `limit` due attempts in one statement: unclaimed or with an expired lease, oldest due
   * first, skipping the given targets (see claim-statement.ts).
   */
  async claim(options: {
    limit: number;
    leaseMs: number;
    excludeTargets: readonly string[];
  }): Promise<ClaimedAttempt[]> {
    const { db, dialect } = this.#store;
    const now = Date.now();
    const claimedUntil = now + options.leaseMs;
    const token = uuidv7();
    const { rows } = await db.executeQuery(
      this.#claim.bind({
        now: dialect.encode('timestamp', new Date(now).toISOString()),
        claimedUntil: dialect.encode('timestamp', new Date(claimedUntil).toISOString()),
        token,
        excludeTargets: options.excludeTargets,
        limit: options.limit,
      }),
    );
    return rows.map((row) => ({
      id: String(row.id),
      webhookId: String(row.webhook_id),
      eventId: String(row.event_id),
      eventType: String(row.event_type),
      attemptNumber: Number(row.attempt_number),
      requestPayload: String(row.request_payload),
      targetUrl: String(row.target_url),
      targetHost: String(row.target_host),
      claimToken: token,
      claimedUntil,
    }));
  }

  /** Extends a lease before a late send; false when the claim was lost. */
  async renewLease(attempt: ClaimedAttempt, leaseMs: number): Promise<boolean> {
    const until = Date.now() + leaseMs;
    const result = await this.#store.db
      .updateTable(DELIVERIES_TABLE)
      .set({ claimed_until: this.#store.dialect.encode('timestamp', new Date(until).toISOString()) })
      .where('id', '=', attempt.id)
      .where('claim_token', '=', attempt.claimToken)
      .executeTakeFirst();
    if (Number(result.numUpdatedRows) === 0) return false;
    attempt.claimedUntil = until;
    return true;
  }

  /** Gives unsent claimed attempts back, to be claimed again at once (by this or another worker). */
  async release(attempts: readonly ClaimedAttempt[]): Promise<void> {
    for (let start = 0; start < attempts.length; start += RELEASE_CHUNK) {
      const chunk = attempts.slice(start, start + RELEASE_CHUNK);
      await this.#store.db
        .updateTable(DELIVERIES_TABLE)
        .set({ claimed_until: null, claim_token: null })
        .where(
          'id',
          'in',
          chunk.map((a) => a.id),
        )
        .where('claim_token', 'in', [...new Set(chunk.map((a) => a.claimToken))])
        .execute();
    }
  }

  /** Removes an attempt whose subscription no longer exists. */
  async discard(attempt: ClaimedAttempt): Promise<void> {
    await this.#store.db
      .deleteFrom(DELIVERIES_TABLE)
      .where('id', '=', attempt.id)
      .where('claim_token', '=', attempt.claimToken)
      .execute();
  }

  /**
   * Records an attempt's outcome. A retry keeps this record `pending` with `nextRetryAt` and queues the
   * next attempt as its own record, in one transaction. False when the claim had been lost.
   */
  async settle(attempt: ClaimedAttempt, outcome: AttemptOutcome): Promise<boolean> {
    const { encode } = this.#store.dialect;
    const record = {
      status: outcome.status === 'retry' ? 'pending' : outcome.status,
      http_status: outcome.httpStatus,
      response_body: outcome.responseBody,
      response_headers: encode('json', outcome.responseHeaders),
      error: outcome.status === 'success' ? null : outcome.error,
      delivered_at: outcome.status === 'success' ? encode('timestamp', outcome.deliveredAt) : null,
      next_retry_at: outcome.status === 'retry' ? encode('timestamp', outcome.nextRetryAt) : null,
      due_at: null,
      claimed_until: null,
      claim_token: null,
    };
    const write = async (db: Db) => {
      const result = await db
        .updateTable(DELIVERIES_TABLE)
        .set(record)
        .where('id', '=', attempt.id)
        .where('claim_token', '=', attempt.claimToken)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    };
    if (outcome.status !== 'retry') return write(this.#store.db);
    return this.#store.db.transaction().execute(async (trx) => {
      if (!(await write(trx))) return false;
      const id = uuidv7();
      const attemptNumber = attempt.attemptNumber + 1;
      const next: QueuedAttempt = {
        id,
        webhookId: attempt.webhookId,
        eventId: attempt.eventId,
        eventType: attempt.eventType,
        attemptNumber,
        requestPayload: payloadForAttempt(attempt.requestPayload, { id, attempt: attemptNumber }),
        targetUrl: attempt.targetUrl,
        dueAt: outcome.nextRetryAt,
      };
      await this.queue([next], trx);
      return true;
    });
  }

  /**
   * Queues the deliveries a subscription is missing for the events committed since `sinceMs` that
   * match it: events written by a process whose subscription cache did not have it yet. `attemptOf`
   * builds the first attempt of one; it answers undefined for an event it does not match. Run by
   * several processes at once, the catch-ups of one subscription take turns (each first writes its
   * subscription's row, which holds that row until it commits), and each sees what the one before
   * queued, so no event is queued twice. Returns how many were queued; 0 when the subscription is gone.
   */
  async catchUp(
    webhookId: string,
    sinceMs: number,
    attemptOf: (event: RecordEvent) => QueuedAttempt | undefined,
  ): Promise<number> {
    // Looked for first outside any write: nearly every pass finds nothing to queue, and on SQLite the
    // scan inside the write transaction (tens of ms once thousands of events followed the change) held
    // every other write back, once a second for the whole catch-up window.
    if (!(await this.#anyMissing(webhookId, sinceMs, attemptOf))) return 0;
    return this.#store.db.transaction().execute(async (trx) => {
      const turn = await trx
        .updateTable(WEBHOOKS_TABLE)
        .set({ id: webhookId })
        .where('id', '=', webhookId)
        .executeTakeFirst();
      if (Number(turn.numUpdatedRows) === 0) return 0;
      let queued = 0;
      let after = uuidv7TimeFloor(sinceMs);
      for (;;) {
        const page = await this.#undeliveredPage(trx, webhookId, after);
        const attempts: QueuedAttempt[] = [];
        for (const row of page) {
          const attempt = attemptOf(JSON.parse(String(row.payload)) as RecordEvent);
          if (attempt) attempts.push(attempt);
        }
        await this.queue(attempts, trx);
        queued += attempts.length;
        if (page.length < CATCH_UP_PAGE) return queued;
        after = String(page[page.length - 1]!.id);
      }
    });
  }

  /** Whether some event since `sinceMs` that the subscription matches has no delivery for it. */
  async #anyMissing(
    webhookId: string,
    sinceMs: number,
    attemptOf: (event: RecordEvent) => QueuedAttempt | undefined,
  ): Promise<boolean> {
    let after = uuidv7TimeFloor(sinceMs);
    for (;;) {
      const page = await this.#undeliveredPage(this.#store.db, webhookId, after);
      if (page.some((row) => attemptOf(JSON.parse(String(row.payload)) as RecordEvent) !== undefined)) return true;
      if (page.length < CATCH_UP_PAGE) return false;
      after = String(page[page.length - 1]!.id);
    }
  }

  /**
   * A page of the events after `after` (an event id) without a delivery for the subscription. Event ids
   * are UUIDv7, so a time bound is a range of the id's unique index, and a time floor is a prefix of
   * the ids of its millisecond, so `>` includes them.
   */
  #undeliveredPage(db: Db, webhookId: string, after: string) {
    return db
      .selectFrom(EVENTS_TABLE)
      .select(['id', 'payload'])
      .where('id', '>', after)
      .where((eb) =>
        eb.not(
          eb.exists(
            eb
              .selectFrom(DELIVERIES_TABLE)
              .select('event_id')
              .whereRef(`${DELIVERIES_TABLE}.event_id`, '=', `${EVENTS_TABLE}.id`)
              .where(`${DELIVERIES_TABLE}.webhook_id`, '=', webhookId),
          ),
        ),
      )
      .orderBy('id')
      .limit(CATCH_UP_PAGE)
      .execute();
  }

  /** Points a subscription's unsent attempts at its new url (an admin fixing a wrong url expects the retries there). */
  async retarget(webhookId: string, url: string): Promise<void> {
    await this.#store.db
      .updateTable(DELIVERIES_TABLE)
      .set({ target_url: url, target_host: targetHostOf(url) })
      .where('webhook_id', '=', webhookId)
      .where('due_at', 'is not', null)
      .execute();
  }

  /** Records successful attempts; returns the ids recorded (see #settleStatement). */
  async settleSuccesses(
    settled: readonly { attempt: ClaimedAttempt; outcome: SuccessOutcome }[],
  ): Promise<Set<string>> {
    if (settled.length === 0) return new Set();
    const { db, dialect } = this.#store;
    const parameters: unknown[] = [];
    for (const { attempt, outcome } of settled) {
      parameters.push(
        attempt.id,
        attempt.claimToken,
        outcome.httpStatus,
        outcome.responseBody,
        dialect.encode('json', outcome.responseHeaders),
        dialect.encode('timestamp', outcome.deliveredAt),
      );
    }
    // Built and compiled by Kysely once per batch size (it bound the values one for one, in order), then
    // reused: building it anew visited six value nodes per success, and its new text was hashed again.
    let text = this.#settleTexts.get(settled.length);
    if (text === undefined) {
      const compiled = this.#settleStatement(parameters).compile(db);
      if (
        compiled.parameters.length !== parameters.length ||
        !compiled.parameters.every((value, i) => value === parameters[i])
      ) {
        return new Set((await db.executeQuery<{ id: string }>(compiled)).rows.map((row) => String(row.id)));
      }
      text = compiled.sql;
      this.#settleTexts.set(settled.length, text);
    }
    const { rows: recorded } = await db.executeQuery<{ id: string }>(CompiledQuery.raw(text, parameters));
    return new Set(recorded.map((row) => String(row.id)));
  }

  /**
   * Many successful attempts recorded in one statement (UPDATE … FROM VALUES), so a busy worker pays one
   * round trip and one commit per batch rather than per delivery; an attempt whose claim was lost is
   * left out of what it returns. `parameters` holds six values per attempt, in the VALUES columns'
   * order. VALUES columns arrive untyped, hence the casts to the column types.
   */
  #settleStatement(parameters: readonly unknown[]) {
    const { dialect } = this.#store;
    const type = (kind: StorageKind) => sql.raw(dialect.columnType(kind));
    const rows = [];
    for (let i = 0; i < parameters.length; i += 6) rows.push(sql`(${sql.join(parameters.slice(i, i + 6))})`);
    const table = sql.table(DELIVERIES_TABLE);
    return sql<{ id: string }>`
      update ${table} set
        status = 'success', error = null, next_retry_at = null, due_at = null, claimed_until = null, claim_token = null,
        http_status = cast(v.column3 as ${type('integer')}),
        response_body = cast(v.column4 as text),
        response_headers = cast(v.column5 as ${type('json')}),
        delivered_at = cast(v.column6 as ${type('timestamp')})
      from (values ${sql.join(rows)}) as v
      where ${table}.id = v.column1 and ${table}.claim_token = v.column2
      returning ${table}.id`;
  }

  async list(webhookId: string, filter: DeliveryFilter): Promise<{ items: WebhookDelivery[]; total: number }> {
    const { db } = this.#store;
    let where = db.selectFrom(DELIVERIES_TABLE).where('webhook_id', '=', webhookId);
    if (filter.status) where = where.where('status', '=', filter.status);
    if (filter.eventId) where = where.where('event_id', '=', filter.eventId);
    const [rows, counted] = await Promise.all([
      where
        .selectAll()
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .limit(filter.limit)
        .offset(filter.offset)
        .execute(),
      where.select(sql<number>`count(*)`.as('total')).executeTakeFirst(),
    ]);
    return { items: rows.map((row) => this.#decode(row)), total: Number(counted?.total ?? 0) };
  }

  async find(webhookId: string, id: string): Promise<WebhookDelivery | undefined> {
    const row = await this.#store.db
      .selectFrom(DELIVERIES_TABLE)
      .selectAll()
      .where('webhook_id', '=', webhookId)
      .where('id', '=', id)
      .executeTakeFirst();
    return row ? this.#decode(row) : undefined;
  }

  /** Whether an attempt of this event to this subscription is still waiting to be sent. */
  async hasUnsent(webhookId: string, eventId: string): Promise<boolean> {
    const row = await this.#store.db
      .selectFrom(DELIVERIES_TABLE)
      .select('id')
      .where('webhook_id', '=', webhookId)
      .where('event_id', '=', eventId)
      .where('due_at', 'is not', null)
      .executeTakeFirst();
    return row !== undefined;
  }

  /** The highest attempt number recorded for an event and subscription. */
  async lastAttemptNumber(webhookId: string, eventId: string): Promise<number> {
    const row = await this.#store.db
      .selectFrom(DELIVERIES_TABLE)
      .select(sql<number>`max(attempt_number)`.as('last'))
      .where('webhook_id', '=', webhookId)
      .where('event_id', '=', eventId)
      .executeTakeFirst();
    return Number(row?.last ?? 0);
  }

  #decode(row: Record<string, unknown>): WebhookDelivery {
    const { decode } = this.#store.dialect;
    return {
      id: String(row.id),
      webhookId: String(row.webhook_id),
      eventId: String(row.event_id),
      eventType: String(row.event_type),
      status: String(row.status) as DeliveryStatus,
      httpStatus: row.http_status === null || row.http_status === undefined ? null : Number(row.http_status),
      requestPayload: String(row.request_payload),
      responseBody: row.response_body === null || row.response_body === undefined ? null : String(row.response_body),
      responseHeaders: decode('json', row.response_headers) as Record<string, string> | null,
      error: row.error === null || row.error === undefined ? null : String(row.error),
      deliveredAt: decode('timestamp', row.delivered_at) as string | null,
      attemptNumber: Number(row.attempt_number),
      nextRetryAt: decode('timestamp', row.next_retry_at) as string | null,
      createdAt: decode('timestamp', row.created_at) as string,
    };
  }
}

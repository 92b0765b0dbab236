// Reads and writes `svc_api_keys`. Every statement that changes a counter is a single atomic UPDATE,
// so several processes sharing the database never lose or double-count a request.
import { sql } from 'kysely';
import type { Store } from '../../store/create-store.ts';
import { API_KEY_COLUMNS, API_KEY_TABLE, type ApiKeyColumn } from './api-key-table.ts';
import { API_KEY_PUBLIC_COLUMNS, decodeApiKeyRow, type ApiKeyRecord } from './api-key-record.ts';

export type NewApiKey = Omit<ApiKeyRecord, 'requestCount' | 'lastRequest' | 'updatedAt'> & { keyHash: string };

/** Fields an administrator may change (docs/admin-api.md); `undefined` = leave as is. */
export interface ApiKeyChanges {
  name?: string | null;
  enabled?: boolean;
  permissions?: ApiKeyRecord['permissions'];
  metadata?: ApiKeyRecord['metadata'];
  expiresAt?: string | null;
  rateLimitEnabled?: boolean;
  rateLimitMax?: number | null;
  rateLimitTimeWindow?: number | null;
  refillInterval?: number | null;
  refillAmount?: number | null;
  remaining?: number | null;
}

const CHANGE_COLUMNS: Record<keyof ApiKeyChanges, ApiKeyColumn> = {
  name: 'name',
  enabled: 'enabled',
  permissions: 'permissions',
  metadata: 'metadata',
  expiresAt: 'expires_at',
  rateLimitEnabled: 'rate_limit_enabled',
  rateLimitMax: 'rate_limit_max',
  rateLimitTimeWindow: 'rate_limit_time_window',
  refillInterval: 'refill_interval',
  refillAmount: 'refill_amount',
  remaining: 'remaining',
};

export interface UsageIncrement {
  keyId: string;
  count: number;
  lastRequest: Date;
}

export interface QuotaRow {
  remaining: number | null;
  refillInterval: number | null;
  refillAmount: number | null;
  lastRefillAt: string | null;
}

export class ApiKeyRepository {
  readonly #store: Store;

  constructor(store: Store) {
    this.#store = store;
  }

  #encode(column: ApiKeyColumn, value: unknown): unknown {
    return this.#store.dialect.encode(API_KEY_COLUMNS[column], value);
  }

  #decode(row: Record<string, unknown>): ApiKeyRecord {
    return decodeApiKeyRow(row, this.#store.dialect);
  }

  async insert(key: NewApiKey): Promise<ApiKeyRecord> {
    const values: Record<ApiKeyColumn, unknown> = {
      id: key.id,
      name: key.name,
      prefix: key.prefix,
      start: key.start,
      user_id: key.userId,
      enabled: key.enabled,
      permissions: key.permissions,
      metadata: key.metadata,
      expires_at: key.expiresAt,
      rate_limit_enabled: key.rateLimitEnabled,
      rate_limit_max: key.rateLimitMax,
      rate_limit_time_window: key.rateLimitTimeWindow,
      refill_interval: key.refillInterval,
      refill_amount: key.refillAmount,
      request_count: 0,
      remaining: key.remaining,
      last_request: null,
      last_refill_at: key.lastRefillAt,
      key_hash: key.keyHash,
      created_at: key.createdAt,
      updated_at: key.createdAt,
      console: key.console,
    };
    const encoded = Object.fromEntries(
      Object.entries(values).map(([column, value]) => [column, this.#encode(column as ApiKeyColumn, value)]),
    );
    await this.#store.db.insertInto(API_KEY_TABLE).values(encoded).execute();
    const created = await this.findById(key.id);
    if (!created) throw new Error(`API key ${key.id} vanished right after insert`);
    return created;
  }

  async findByHash(keyHash: string): Promise<ApiKeyRecord | undefined> {
    const row = await this.#store.db
      .selectFrom(API_KEY_TABLE)
      .select(API_KEY_PUBLIC_COLUMNS)
      .where('key_hash', '=', keyHash)
      .executeTakeFirst();
    return row ? this.#decode(row) : undefined;
  }

  async findById(id: string): Promise<ApiKeyRecord | undefined> {
    const row = await this.#store.db
      .selectFrom(API_KEY_TABLE)
      .select(API_KEY_PUBLIC_COLUMNS)
      .where('id', '=', id)
      .executeTakeFirst();
    return row ? this.#decode(row) : undefined;
  }

  async list(filter: {
    userId?: string;
    /** Console keys too (they are left out unless asked for). */
    includeConsole?: boolean;
    limit: number;
    offset: number;
  }): Promise<{ keys: ApiKeyRecord[]; total: number }> {
    let query = this.#store.db.selectFrom(API_KEY_TABLE);
    if (filter.userId !== undefined) query = query.where('user_id', '=', filter.userId);
    if (filter.includeConsole !== true)
      query = query.where((eb) =>
        eb.or([eb('console', 'is', null), eb('console', '=', this.#encode('console', false) as boolean)]),
      );
    const [rows, count] = await Promise.all([
      query
        .select(API_KEY_PUBLIC_COLUMNS)
        .orderBy('created_at')
        .orderBy('id')
        .limit(filter.limit)
        .offset(filter.offset)
        .execute(),
      query.select((eb) => eb.fn.countAll().as('total')).executeTakeFirst(),
    ]);
    return { keys: rows.map((row) => this.#decode(row)), total: Number(count?.total ?? 0) };
  }

  async update(id: string, changes: ApiKeyChanges, now: Date): Promise<ApiKeyRecord | undefined> {
    const set: Record<string, unknown> = { updated_at: this.#encode('updated_at', now.toISOString()) };
    for (const [field, column] of Object.entries(CHANGE_COLUMNS) as [keyof ApiKeyChanges, ApiKeyColumn][]) {
      if (changes[field] !== undefined) set[column] = this.#encode(column, changes[field]);
    }
    // A new quota or refill schedule starts counting now, not at the key's creation.
    if (changes.remaining !== undefined || changes.refillInterval !== undefined) {
      set.last_refill_at = this.#encode('last_refill_at', now.toISOString());
    }
    const result = await this.#store.db.updateTable(API_KEY_TABLE).set(set).where('id', '=', id).executeTakeFirst();
    return result.numUpdatedRows > 0n ? this.findById(id) : undefined;
  }

  async delete(id: string): Promise<boolean> {
    const result = await this.#store.db.deleteFrom(API_KEY_TABLE).where('id', '=', id).executeTakeFirst();
    return result.numDeletedRows > 0n;
  }

  /**
   * Ids of console keys that no longer work (unused for `idleMs`, or past their expiry), at most `limit`
   * of them: those the retention job deletes.
   */
  async idleConsoleKeys(now: Date, idleMs: number, limit: number): Promise<string[]> {
    const at = (time: Date) => this.#encode('created_at', time.toISOString()) as string;
    const idleSince = at(new Date(now.getTime() - idleMs));
    const rows = await this.#store.db
      .selectFrom(API_KEY_TABLE)
      .select('id')
      .where('console', '=', this.#encode('console', true) as boolean)
      .where((eb) =>
        eb.or([
          eb('expires_at', '<=', at(now)),
          eb.and([
            eb('created_at', '<', idleSince),
            eb.or([eb('last_request', 'is', null), eb('last_request', '<', idleSince)]),
          ]),
        ]),
      )
      .limit(limit)
      .execute();
    return rows.map((row) => String(row.id));
  }

  async deleteByUser(userId: string): Promise<void> {
    await this.#store.db.deleteFrom(API_KEY_TABLE).where('user_id', '=', userId).execute();
  }

  /** Adds buffered request counts in one transaction: all of a batch lands, or none of it does. */
  async addUsage(increments: readonly UsageIncrement[]): Promise<void> {
    if (increments.length === 0) return;
    await this.#store.db.transaction().execute(async (trx) => {
      for (const { keyId, count, lastRequest } of increments) {
        await trx
          .updateTable(API_KEY_TABLE)
          .set({
            request_count: sql`request_count + ${count}`,
            last_request: this.#encode('last_request', lastRequest.toISOString()),
          })
          .where('id', '=', keyId)
          .execute();
      }
    });
  }

  async readQuota(id: string): Promise<QuotaRow | undefined> {
    const row = await this.#store.db
      .selectFrom(API_KEY_TABLE)
      .select(['remaining', 'refill_interval', 'refill_amount', 'last_refill_at'])
      .where('id', '=', id)
      .executeTakeFirst();
    if (!row) return undefined;
    const record = this.#decode(row);
    return {
      remaining: record.remaining,
      refillInterval: record.refillInterval,
      refillAmount: record.refillAmount,
      lastRefillAt: record.lastRefillAt,
    };
  }

  /**
   * Takes one request from the quota: `remaining - 1` only while it is above zero, in one statement,
   * so concurrent requests can never drive it negative. Returns what is left, or undefined when none was.
   */
  async takeQuota(id: string): Promise<number | undefined> {
    const row = await this.#store.db
      .updateTable(API_KEY_TABLE)
      .set({ remaining: sql`remaining - 1` })
      .where('id', '=', id)
      .where('remaining', '>', 0)
      .returning('remaining')
      .executeTakeFirst();
    return row ? Number(row.remaining) : undefined;
  }

  /**
   * Applies a refill computed from `seen`. Compare-and-set on last_refill_at: when another process
   * refilled first, nothing changes here and the caller simply re-reads.
   */
  async applyRefill(id: string, seen: QuotaRow, remaining: number, lastRefillAt: string): Promise<boolean> {
    let query = this.#store.db
      .updateTable(API_KEY_TABLE)
      .set({
        remaining: this.#encode('remaining', remaining),
        last_refill_at: this.#encode('last_refill_at', lastRefillAt),
      })
      .where('id', '=', id);
    query =
      seen.lastRefillAt === null
        ? query.where('last_refill_at', 'is', null)
        : query.where('last_refill_at', '=', this.#encode('last_refill_at', seen.lastRefillAt));
    const result = await query.executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }
}

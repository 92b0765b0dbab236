// The `svc_api_keys` table (spec 2.1): one row per issued key, holding only the SHA-256 of the secret.
import { sql } from 'kysely';
import type { Store } from '../../store/create-store.ts';
import type { StorageKind } from '../../store/storage-kind.ts';

export const API_KEY_TABLE = 'svc_api_keys';

/** Column → storage kind; drives both the table definition and row decoding. */
export const API_KEY_COLUMNS = {
  id: 'text',
  name: 'text',
  prefix: 'text',
  start: 'text',
  user_id: 'text',
  enabled: 'boolean',
  permissions: 'json',
  metadata: 'json',
  expires_at: 'timestamp',
  rate_limit_enabled: 'boolean',
  rate_limit_max: 'integer',
  rate_limit_time_window: 'integer',
  refill_interval: 'integer',
  refill_amount: 'integer',
  request_count: 'integer',
  remaining: 'integer',
  last_request: 'timestamp',
  // Not in spec 2.1, but a refill "every refillInterval" needs to know when the last one happened.
  last_refill_at: 'timestamp',
  key_hash: 'text',
  created_at: 'timestamp',
  updated_at: 'timestamp',
  // The web console's own key (one per sign-in, ended by idle time: console-key.ts). Added after the
  // first release, so createApiKeyTable adds it to tables made before it.
  console: 'boolean',
} as const satisfies Record<string, StorageKind>;

export type ApiKeyColumn = keyof typeof API_KEY_COLUMNS;

const NOT_NULL: ReadonlySet<ApiKeyColumn> = new Set([
  'prefix',
  'start',
  'user_id',
  'enabled',
  'rate_limit_enabled',
  'request_count',
  'key_hash',
  'created_at',
  'updated_at',
]);

export async function createApiKeyTable(store: Store): Promise<void> {
  let table = store.db.schema.createTable(API_KEY_TABLE).ifNotExists();
  for (const [name, kind] of Object.entries(API_KEY_COLUMNS) as [ApiKeyColumn, StorageKind][]) {
    table = table.addColumn(name, sql.raw(store.dialect.columnType(kind)), (column) => {
      if (name === 'id') return column.primaryKey();
      return NOT_NULL.has(name) ? column.notNull() : column;
    });
  }
  await table.execute();
  const existing = new Set((await store.dialect.listColumns(store.db, API_KEY_TABLE)).map((column) => column.name));
  for (const [name, kind] of Object.entries(API_KEY_COLUMNS) as [ApiKeyColumn, StorageKind][]) {
    // A column added since the table was made: nullable, so the rows already there need no value.
    if (!existing.has(name) && !NOT_NULL.has(name))
      await store.db.schema
        .alterTable(API_KEY_TABLE)
        .addColumn(name, sql.raw(store.dialect.columnType(kind)))
        .execute();
  }
  await store.db.schema
    .createIndex('svc_api_keys_key_hash_uq')
    .ifNotExists()
    .on(API_KEY_TABLE)
    .column('key_hash')
    .unique()
    .execute();
  await store.db.schema
    .createIndex('svc_api_keys_user_id_idx')
    .ifNotExists()
    .on(API_KEY_TABLE)
    .column('user_id')
    .execute();
}

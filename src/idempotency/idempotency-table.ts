// svc_idempotency_keys: one row per caller and Idempotency-Key, holding the first answer once it is
// known (docs/records.md, "Idempotent creates"). Shared by every node on the database.
import type { Db } from '../store/store-dialect.ts';

export const IDEMPOTENCY_TABLE = 'svc_idempotency_keys';

export async function createIdempotencyTable(db: Db): Promise<void> {
  await db.schema
    .createTable(IDEMPOTENCY_TABLE)
    .ifNotExists()
    // UUIDv7: its order is the order the keys were first used in, which retention's batches follow.
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('caller', 'text', (c) => c.notNull())
    .addColumn('idempotency_key', 'text', (c) => c.notNull())
    .addColumn('fingerprint', 'text', (c) => c.notNull())
    // The request that holds the key now: only it may store the answer or give the key back.
    .addColumn('attempt', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('lease_until', 'text')
    .addColumn('status', 'integer')
    .addColumn('headers', 'text')
    .addColumn('body', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('uq_svc_idempotency_keys_caller_key', ['caller', 'idempotency_key'])
    .execute();
  await db.schema
    .createIndex('ix_svc_idempotency_keys_created_at')
    .ifNotExists()
    .on(IDEMPOTENCY_TABLE)
    .column('created_at')
    .execute();
}

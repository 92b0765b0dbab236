// The subscription and delivery tables, created idempotently; column types come from the store dialect.
import { sql } from 'kysely';
import type { Db, StoreDialect } from '../store/store-dialect.ts';

export const WEBHOOKS_TABLE = 'svc_webhooks';
export const DELIVERIES_TABLE = 'svc_webhook_deliveries';

export async function createWebhookTables(db: Db, dialect: StoreDialect): Promise<void> {
  const type = (kind: Parameters<StoreDialect['columnType']>[0]) => sql.raw(dialect.columnType(kind));
  await db.schema
    .createTable(WEBHOOKS_TABLE)
    .ifNotExists()
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('event_pattern', 'text', (c) => c.notNull())
    .addColumn('headers', type('json'))
    .addColumn('enabled', type('boolean'), (c) => c.notNull())
    .addColumn('retry_config', type('json'))
    .addColumn('field_ids', type('json'))
    .addColumn('secret', 'text', (c) => c.notNull())
    .addColumn('created_at', type('timestamp'), (c) => c.notNull())
    .addColumn('updated_at', type('timestamp'), (c) => c.notNull())
    .execute();

  // No foreign key to svc_webhooks: deliveries are queued inside record writes from a cache of
  // subscriptions, and a subscription deleted meanwhile by another process must not fail that write.
  await db.schema
    .createTable(DELIVERIES_TABLE)
    .ifNotExists()
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('webhook_id', 'text', (c) => c.notNull())
    .addColumn('event_id', 'text', (c) => c.notNull())
    .addColumn('event_type', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('http_status', type('integer'))
    .addColumn('request_payload', 'text', (c) => c.notNull())
    .addColumn('response_body', 'text')
    .addColumn('response_headers', type('json'))
    .addColumn('error', 'text')
    .addColumn('delivered_at', type('timestamp'))
    .addColumn('attempt_number', type('integer'), (c) => c.notNull())
    .addColumn('next_retry_at', type('timestamp'))
    .addColumn('created_at', type('timestamp'), (c) => c.notNull())
    // The worker's columns. target_url is the subscription's url when the attempt was queued;
    // target_host (host:port) keys the per-target concurrency limit.
    .addColumn('target_url', 'text', (c) => c.notNull())
    .addColumn('target_host', 'text', (c) => c.notNull())
    // When this attempt is to be sent; null once it has been made (a failed attempt awaiting its
    // successor stays `pending` for the admin but is not sent again).
    .addColumn('due_at', type('timestamp'))
    // Lease of the worker that claimed the attempt: an attempt whose lease expired (the worker died)
    // is claimed again. claim_token guards every write that settles the attempt.
    .addColumn('claimed_until', type('timestamp'))
    .addColumn('claim_token', 'text')
    .execute();

  // The claim query: attempts still to be sent, oldest due first. Partial, so settled history does not bloat it.
  await db.schema
    .createIndex('ix_svc_webhook_deliveries_due')
    .ifNotExists()
    .on(DELIVERIES_TABLE)
    .column('due_at')
    .where(sql.ref('due_at'), 'is not', null)
    .execute();
  await db.schema
    .createIndex('ix_svc_webhook_deliveries_webhook')
    .ifNotExists()
    .on(DELIVERIES_TABLE)
    .columns(['webhook_id', 'created_at'])
    .execute();
  await db.schema
    .createIndex('ix_svc_webhook_deliveries_event')
    .ifNotExists()
    .on(DELIVERIES_TABLE)
    .column('event_id')
    .execute();
}

// The transactional outbox: events are rows written in the same transaction as the change they describe,
// so a committed change always has its event and a rolled-back one never does.
import type { Db, StoreDialect } from '../store/store-dialect.ts';
import type { RecordEvent } from '../model/record-event.ts';
import { eventJson } from './event-json.ts';
import { sequenceColumn } from '../store/sequence-column.ts';
import type { Store } from '../store/create-store.ts';
import { insertStatement, insertTogetherStatement, type TableRows } from '../store/write-statements.ts';

export const EVENTS_TABLE = 'svc_events';

export async function createOutboxTable(db: Db, dialect: StoreDialect): Promise<void> {
  await db.schema
    .createTable(EVENTS_TABLE)
    .ifNotExists()
    .addColumn('seq', sequenceColumn(dialect))
    .addColumn('id', 'text', (c) => c.notNull().unique())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('resource', 'text', (c) => c.notNull())
    .addColumn('resource_id', 'text', (c) => c.notNull())
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('ix_svc_events_resource_seq')
    .ifNotExists()
    .on(EVENTS_TABLE)
    .columns(['resource', 'seq'])
    .execute();
  // A record's history (GET /v1/:resource/:id/_history) reads its events only.
  await db.schema
    .createIndex('ix_svc_events_record_seq')
    .ifNotExists()
    .on(EVENTS_TABLE)
    .columns(['resource', 'resource_id', 'seq'])
    .execute();
}

/**
 * Writes the event inside the caller's transaction, with the rows that go along with it (`alongside`:
 * its webhook deliveries). While the store signals commits (store/commit-signal.ts), the event's insert
 * carries the signal, which goes out when the transaction commits. Where the database can insert in a
 * WITH, all of it is one statement (one round trip); elsewhere, where a statement costs no round trip,
 * one per table.
 */
export async function appendEvent(
  store: Pick<Store, 'db' | 'executeIn' | 'dialect' | 'commitSignal'>,
  trx: Db,
  event: RecordEvent,
  alongside: readonly TableRows[] = [],
): Promise<void> {
  const row = eventRowOf(event);
  const notify = store.commitSignal.returning();
  const others = alongside.filter((part) => part.rows.length > 0);
  if (others.length > 0 && store.dialect.supportsInsertInWith) {
    await store.executeIn(
      trx,
      insertTogetherStatement(store.db, [{ table: EVENTS_TABLE, rows: [row] }, ...others], notify),
    );
    return;
  }
  await store.executeIn(trx, insertStatement(store.db, EVENTS_TABLE, [row], notify ?? []));
  for (const part of others) await store.executeIn(trx, insertStatement(store.db, part.table, part.rows));
}

/** The outbox row of an event. */
export function eventRowOf(event: RecordEvent): Record<string, unknown> {
  return {
    id: event.id,
    type: event.type,
    resource: event.resource,
    resource_id: event.resourceId,
    payload: eventJson(event),
    created_at: event.createdAt,
  };
}

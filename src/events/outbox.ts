// The transactional outbox: events are rows written in the same transaction as the change they describe,
// so a committed change always has its event and a rolled-back one never does.
import type { Db, StoreDialect } from '../store/store-dialect.ts';
import type { RecordEvent } from './record-event.ts';
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
  await db.schema.createIndex('ix_svc_events_resource_seq').ifNotExists().on(EVENTS_TABLE).columns(['resource', 'seq']).execute();
}

/**
 * Writes the event inside the caller's transaction, with the rows that go along with it (`alongside`:
 * its webhook deliveries). With `notifyChannel` (PostgreSQL), the same statement sends NOTIFY on that
 * channel with the event's seq, which goes out when the transaction commits. On PostgreSQL all of it
 * is one statement (one round trip); on SQLite, where a statement costs no round trip, one per table.
 */
export async function appendEvent(
  store: Pick<Store, 'db' | 'executeIn' | 'dialect'>,
  trx: Db,
  event: RecordEvent,
  notifyChannel?: string,
  alongside: readonly TableRows[] = [],
): Promise<void> {
  const row = eventRowOf(event);
  const notify = notifyReturning(notifyChannel);
  const others = alongside.filter((part) => part.rows.length > 0);
  if (others.length > 0 && store.dialect.supportsInsertInWith) {
    await store.executeIn(trx, insertTogetherStatement(store.db, [{ table: EVENTS_TABLE, rows: [row] }, ...others], notify));
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

/**
 * PostgreSQL: the RETURNING expression of an event's insert that sends NOTIFY at commit, with the
 * row's seq and the event's id (`<seq> <id>`): the writing process knows the id as its own, and need
 * not read the row back (OutboxEventHub).
 */
export function notifyReturning(notifyChannel: string | undefined): { sql: string } | undefined {
  return notifyChannel === undefined ? undefined : { sql: `pg_notify(${quoteLiteral(notifyChannel)}, seq::text || ' ' || id)` };
}

/** The seq and event id of a notification sent by notifyReturning's expression, or null for another payload. */
export function parseNotifyPayload(payload: string): { seq: number; id: string } | null {
  const space = payload.indexOf(' ');
  if (space <= 0) return null;
  const seq = Number(payload.slice(0, space));
  const id = payload.slice(space + 1);
  return Number.isSafeInteger(seq) && seq > 0 && id.length > 0 ? { seq, id } : null;
}

function quoteLiteral(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}

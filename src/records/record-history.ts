// A record's changes as the outbox recorded them (GET /v1/:resource/:id/_history): who, when, which
// fields, and their values, newest first, through the caller's read permissions. The record must be one
// the caller can read now (else 404, as for the record itself); of each change, only fields the caller
// may read are named, and a side of it (before, after) shows its values only when that version of the
// record passed the caller's read filter, judged in memory. Only events within the retention age count.
import { EVENTS_TABLE } from '../events/outbox.ts';
import type { EventData, EventKind } from '../model/record-event.ts';
import type { Principal } from '../model/principal.ts';
import type { RecordValues } from '../model/record-values.ts';
import type { SessionVariables } from '../model/session-variables.ts';
import { resolveAccess } from '../permissions/resolve-access.ts';
import { predicateOf } from '../permissions/row-rights.ts';
import type { Resource } from '../resources/resource.ts';
import type { Store } from '../store/create-store.ts';

export interface FieldChange {
  /** Present when the version before the change was readable by the caller. */
  old?: unknown;
  /** Present when the version after it was. */
  new?: unknown;
}

export interface HistoryEntry {
  /** The event's id (UUIDv7, as streams and webhooks carry it). */
  id: string;
  kind: EventKind;
  at: string;
  /** Who made the change: their user id (null for the admin token) and the role they acted as. */
  actor: SessionVariables;
  /** The readable fields the change set, changed or removed; empty when no side of it was readable. */
  fields: string[];
  changes: Record<string, FieldChange>;
}

export interface HistoryPage {
  entries: HistoryEntry[];
  total: number;
}

interface StoredEvent {
  kind: EventKind;
  createdAt: string;
  data: EventData;
  sessionVariables: SessionVariables;
}

/** The history page of a record the caller was already shown they may read (the caller checks that first). */
export async function readRecordHistory(
  store: Store,
  resource: Resource,
  principal: Principal,
  id: string,
  page: { limit: number; offset: number; maxAgeMs: number; now?: number },
): Promise<HistoryPage> {
  const grant = resolveAccess(resource, principal, 'read');
  const since = new Date((page.now ?? Date.now()) - page.maxAgeMs).toISOString();
  const events = () =>
    store.db
      .selectFrom(EVENTS_TABLE)
      .where('resource', '=', resource.name)
      .where('resource_id', '=', id)
      .where('created_at', '>=', since);
  const [rows, counted] = await Promise.all([
    events().select(['id', 'payload']).orderBy('seq', 'desc').limit(page.limit).offset(page.offset).execute(),
    events()
      .select((eb) => eb.fn.countAll<number | string | bigint>().as('total'))
      .executeTakeFirst(),
  ]);
  const readable = predicateOf(grant.filter, resource);
  const visible = (record: RecordValues | null): record is RecordValues => record !== null && readable(record);
  const entries = rows.map((row): HistoryEntry => {
    const event = JSON.parse(String(row.payload)) as StoredEvent;
    const { old, new: next, changes } = event.data;
    const showOld = visible(old);
    const showNew = visible(next);
    const named = showOld || showNew;
    const fields = named
      ? [...changes.added, ...changes.updated, ...changes.removed].filter((field) => grant.fields.has(field))
      : [];
    const shown: Record<string, FieldChange> = Object.create(null);
    for (const field of fields) {
      const change: FieldChange = {};
      if (showOld && Object.hasOwn(old, field)) change.old = old[field] ?? null;
      if (showNew && Object.hasOwn(next, field)) change.new = next[field] ?? null;
      shown[field] = change;
    }
    return {
      id: String(row.id),
      kind: event.kind,
      at: event.createdAt,
      actor: event.sessionVariables,
      fields,
      changes: { ...shown },
    };
  });
  return { entries, total: Number(counted?.total ?? 0) };
}

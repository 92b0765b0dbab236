// What one stream client sees of an event: nothing when the kind was not asked for or the row is
// outside its read filter; otherwise old/new reduced to the delivered fields and `changes` to match.
import type { EventChanges, EventData, RecordEvent, RecordValues } from '../events/record-event.ts';
import type { AccessGrant } from '../permissions/access-grant.ts';
import { filterToPredicate } from '../permissions/filter-to-predicate.ts';
import { SYSTEM_FIELDS, type Resource } from '../resources/resource.ts';
import type { StreamQuery } from './stream-query.ts';

export type EventView = (event: RecordEvent) => EventData | null;

export function createEventView(resource: Resource, grant: AccessGrant, query: Pick<StreamQuery, 'kinds' | 'fields'>): EventView {
  const matches = filterToPredicate(grant.filter, resource);
  // `deleted_at` is how a soft-deleted record's `new` says it was deleted (CONTRACT 4).
  const delivered = new Set<string>([...SYSTEM_FIELDS, ...(resource.softDelete ? ['deleted_at'] : []), ...query.fields]);
  const project = (record: RecordValues | null): RecordValues | null => {
    if (record === null) return null;
    const out: RecordValues = {};
    for (const name of delivered) if (name in record) out[name] = record[name];
    return out;
  };
  const reduce = (changes: EventChanges): EventChanges => ({
    added: changes.added.filter((name) => delivered.has(name)),
    updated: changes.updated.filter((name) => delivered.has(name)),
    removed: changes.removed.filter((name) => delivered.has(name)),
  });
  return (event) => {
    if (event.resource !== resource.name || !query.kinds.has(event.kind)) return null;
    // CONTRACT 7: `updated` and `created` when the new row matches the read filter, `deleted` when the old one did.
    const row = event.kind === 'deleted' ? event.data.old : event.data.new;
    if (row === null || !matches(row)) return null;
    return { old: project(event.data.old), new: project(event.data.new), changes: reduce(event.data.changes) };
  };
}

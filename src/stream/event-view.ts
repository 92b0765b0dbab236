// What one stream client sees of an event: nothing when the kind was not asked for or the row is
// outside its read filter; otherwise old/new reduced to the delivered fields and `changes` to match.
// Clients that would see the same thing get the same view object, so the stream can evaluate and
// serialize an event once per view rather than once per client (see view-group.ts).
import type { EventChanges, EventData, RecordEvent, RecordValues } from '../events/record-event.ts';
import type { AccessGrant } from '../permissions/access-grant.ts';
import { filterToPredicate } from '../permissions/filter-to-predicate.ts';
import { SYSTEM_FIELDS, type Resource } from '../resources/resource.ts';
import { filterKey } from './filter-key.ts';
import type { StreamQuery } from './stream-query.ts';

export type EventView = (event: RecordEvent) => EventData | null;

type ViewQuery = Pick<StreamQuery, 'kinds' | 'fields'>;

/** Views per resource object (a reloaded registry brings new ones); a full map starts over, as in resolve-access.ts. */
const views = new WeakMap<Resource, Map<string, EventView>>();
const MAX_VIEWS_PER_RESOURCE = 10_000;

/**
 * The view for a grant and query. A view depends only on the resource, the grant's filter (session
 * values are already substituted in it), the kinds and the delivered fields, so equal inputs share one.
 */
export function createEventView(resource: Resource, grant: AccessGrant, query: ViewQuery): EventView {
  let byKey = views.get(resource);
  if (!byKey) {
    byKey = new Map();
    views.set(resource, byKey);
  }
  // Kinds are only tested for membership; fields keep their order, which is the delivered key order.
  const key = `${[...query.kinds].sort().join(',')}\u0000${query.fields.join(',')}\u0000${filterKey(grant.filter)}`;
  let view = byKey.get(key);
  if (!view) {
    if (byKey.size >= MAX_VIEWS_PER_RESOURCE) byKey.clear();
    view = buildEventView(resource, grant, query);
    byKey.set(key, view);
  }
  return view;
}

function buildEventView(resource: Resource, grant: AccessGrant, query: ViewQuery): EventView {
  const matches = filterToPredicate(grant.filter, resource);
  const kinds = new Set(query.kinds);
  // `deleted_at` is how a soft-deleted record's `new` says it was deleted (CONTRACT 4).
  const delivered = new Set<string>([...SYSTEM_FIELDS, ...(resource.softDelete ? ['deleted_at'] : []), ...query.fields]);
  const project = (record: RecordValues | null): RecordValues | null => {
    if (record === null) return null;
    const out: RecordValues = {};
    for (const name of delivered) if (Object.hasOwn(record, name)) out[name] = record[name];
    return out;
  };
  const reduce = (changes: EventChanges): EventChanges => ({
    added: changes.added.filter((name) => delivered.has(name)),
    updated: changes.updated.filter((name) => delivered.has(name)),
    removed: changes.removed.filter((name) => delivered.has(name)),
  });
  return (event) => {
    if (event.resource !== resource.name || !kinds.has(event.kind)) return null;
    // CONTRACT 7: `updated` and `created` when the new row matches the read filter, `deleted` when the old one did.
    const row = event.kind === 'deleted' ? event.data.old : event.data.new;
    if (row === null || !matches(row)) return null;
    return { old: project(event.data.old), new: project(event.data.new), changes: reduce(event.data.changes) };
  };
}

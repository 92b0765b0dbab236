// What one stream client sees of an event, judged by what it may read before and after the change:
// a row it could not read before arrives as `created`, a row it can no longer read leaves as `deleted`,
// values are reduced to the delivered fields, and a change it cannot see is not sent at all.
// Clients that would see the same thing get the same view object, so the stream can evaluate and
// serialize an event once per view rather than once per client (see view-group.ts).
import { diffRecords } from '../events/diff-records.ts';
import type { EventChanges, EventData, EventKind, RecordEvent } from '../model/record-event.ts';
import type { RecordValues } from '../model/record-values.ts';
import type { AccessGrant } from '../model/access-grant.ts';
import { filterToPredicate } from '../query/filter-to-predicate.ts';
import { SYSTEM_FIELDS, type Resource } from '../resources/resource.ts';
import { filterKey } from './filter-key.ts';
import { filterIndexKeys } from './filter-index-keys.ts';
import type { LiveGroupIndex } from './live-views.ts';
import { allOf, type FilterNode } from '../model/filter-node.ts';
import type { StreamQuery } from './stream-query.ts';

/** An event as a view delivers it: its kind may differ from the stored event's (see `viewKind`). */
export interface ViewedEvent {
  kind: EventKind;
  data: EventData;
}

export type EventView = (event: RecordEvent) => ViewedEvent | null;

type ViewQuery = Pick<StreamQuery, 'kinds' | 'fields'> & Partial<Pick<StreamQuery, 'deletedAt' | 'filter'>>;

/**
 * Per event, the viewed events made of it so far, by outcome (see buildEventView): 1,000 streams with
 * 1,000 different filters that all admit a record project and serialize it once, not 1,000 times.
 * Collected with the event.
 */
const outcomes = new WeakMap<RecordEvent, Map<string, ViewedEvent | null>>();

/** Views per resource object (a reloaded registry brings new ones); a full map starts over, as in resolve-access.ts. */
const views = new WeakMap<Resource, Map<string, EventView>>();
const MAX_VIEWS_PER_RESOURCE = 10_000;
/** The projections of the views of each resource object, by kinds, fields and `deleted_at`. */
const projections = new WeakMap<Resource, Map<string, ViewProjection>>();

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
  // The caller's own filter narrows the rows as the role's does: one tree, one before/after rule, and
  // streams whose role and requested filters are the same tree share the view (and its ViewGroup).
  const filter = query.filter === undefined ? grant.filter : allOf([grant.filter, query.filter]);
  // Kinds are only tested for membership; fields keep their order, which is the delivered key order.
  const shapeKey = `${[...query.kinds].sort().join(',')}\u0000${query.fields.join(',')}\u0000${query.deletedAt === true}`;
  const key = `${shapeKey}\u0000${filterKey(filter)}`;
  let view = byKey.get(key);
  if (!view) {
    if (byKey.size >= MAX_VIEWS_PER_RESOURCE) byKey.clear();
    view = buildEventView(resource, filter, projectionOf(resource, shapeKey, query));
    byKey.set(key, view);
    indexes.set(view, {
      resource: resource.name,
      keys: filterIndexKeys(filter, resource),
      kindOf: (field) => resource.storageOf(field),
    });
  }
  return view;
}

/** How each view's live groups are found for an event (live-views.ts). */
const indexes = new WeakMap<EventView, LiveGroupIndex>();

/** The index of a view made by createEventView; null for any other (it is then given every event). */
export function viewIndexOf(view: EventView): LiveGroupIndex | null {
  return indexes.get(view) ?? null;
}

/**
 * The kind a reader gets, from whether it could read the row before the change and can read it after:
 * a client applying the events it receives to its copy then holds exactly what a GET would show.
 * Null: the row was never visible to it. A `deleted` event leaves the row unreadable however it matched
 * (a soft-deleted row is gone from the API).
 */
export function viewKind(visibleBefore: boolean, visibleAfter: boolean): EventKind | null {
  if (visibleBefore) return visibleAfter ? 'updated' : 'deleted';
  return visibleAfter ? 'created' : null;
}

/**
 * What a view makes of an event once its filter has decided: which kinds it delivers, which fields, and
 * the keys of its outcomes. Views that differ only in their filters share one (1,000 streams with a
 * filter each hold one projection, not 1,000 copies of its closures and keys).
 */
interface ViewProjection {
  kinds: ReadonlySet<EventKind>;
  deletedAt: boolean;
  project(record: RecordValues): RecordValues;
  reduce(changes: EventChanges): EventChanges;
  /** Keys of the 12 outcomes, by (kind, visible before, shown after): see buildEventView. */
  outcomeKeys: readonly string[];
}

function projectionOf(resource: Resource, shapeKey: string, query: ViewQuery): ViewProjection {
  let byKey = projections.get(resource);
  if (!byKey) {
    byKey = new Map();
    projections.set(resource, byKey);
  }
  let projection = byKey.get(shapeKey);
  if (!projection) {
    if (byKey.size >= MAX_VIEWS_PER_RESOURCE) byKey.clear();
    projection = buildProjection(resource, query);
    byKey.set(shapeKey, projection);
  }
  return projection;
}

function buildProjection(resource: Resource, query: ViewQuery): ViewProjection {
  // `deleted_at` only when asked for (soft-delete resources): a GET never shows it, so it is opt-in.
  const deletedAt = query.deletedAt === true && resource.softDelete;
  /** Fields whose changes the reader may learn of: system fields are in every record and never counted. */
  const changeable = new Set<string>([...query.fields, ...(deletedAt ? ['deleted_at'] : [])]);
  const delivered = [...SYSTEM_FIELDS, ...changeable];
  const shape = delivered.join(',');
  return {
    kinds: new Set(query.kinds),
    deletedAt,
    project(record) {
      const out: RecordValues = {};
      for (const name of delivered) if (Object.hasOwn(record, name)) out[name] = record[name];
      return out;
    },
    reduce: (changes) => ({
      added: changes.added.filter((name) => changeable.has(name)),
      updated: changes.updated.filter((name) => changeable.has(name)),
      removed: changes.removed.filter((name) => changeable.has(name)),
    }),
    // Every outcome's key made once: a key built per event and view was a string allocation per test.
    outcomeKeys: (['created', 'updated', 'deleted'] as const).flatMap((kind) =>
      [false, true].flatMap((before) =>
        [false, true].map((shown) => `${shape}\u0000${kind}\u0000${before}\u0000${shown}`),
      ),
    ),
  };
}

function buildEventView(resource: Resource, filter: FilterNode, projection: ViewProjection): EventView {
  const matches = filterToPredicate(filter, resource);
  const { kinds, deletedAt, project, reduce, outcomeKeys } = projection;
  return (event) => {
    if (event.resource !== resource.name) return null;
    const { old, new: next } = event.data;
    const before = old !== null && matches(old);
    const after = event.kind !== 'deleted' && next !== null && matches(next);
    const kind = viewKind(before, after);
    if (kind === null || !kinds.has(kind)) return null;
    // A soft delete keeps its record (with `deleted_at`) for a reader that asked for `deleted_at`.
    const newShown = after || (kind === 'deleted' && deletedAt && next !== null && matches(next));
    // Past the filter, what a view makes of the event depends only on the fields it delivers and on
    // which records it shows: views that differ only in their filters share the result (and its frame).
    let byOutcome = outcomes.get(event);
    if (!byOutcome) {
      byOutcome = new Map();
      outcomes.set(event, byOutcome);
    }
    const outcome =
      outcomeKeys[(kind === 'created' ? 0 : kind === 'updated' ? 4 : 8) + (before ? 2 : 0) + (newShown ? 1 : 0)]!;
    const known = byOutcome.get(outcome);
    if (known !== undefined) return known;
    const oldOut = before ? project(old!) : null;
    const newOut = newShown ? project(next!) : null;
    // Same kind and shape as stored: its changes, reduced. Otherwise they are worked out from what the
    // reader sees, so a row that came into view lists as added only the values it can read.
    const changes =
      kind === event.kind && (newOut === null) === (next === null)
        ? reduce(event.data.changes)
        : reduce(diffRecords(oldOut, newOut));
    // An update of nothing the reader can see (`updated_at` moves on every update) would only tell it
    // that a hidden value changed.
    const viewed: ViewedEvent | null =
      kind === 'updated' && changes.added.length + changes.updated.length + changes.removed.length === 0
        ? null
        : { kind, data: { old: oldOut, new: newOut, changes } };
    byOutcome.set(outcome, viewed);
    return viewed;
  };
}

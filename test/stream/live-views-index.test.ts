// Property: the index of live stream views (live-views.ts) hands an event to every view that delivers it,
// for generated filters with `_or`, `_not`, nulls, `in` lists and every indexable type; testing only the
// views it names gives the same results as testing all of them. And it does skip views.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { AdminPrincipal } from '../../src/model/principal.ts';
import type { RecordEvent } from '../../src/model/record-event.ts';
import type { RecordValues } from '../../src/model/record-values.ts';
import { resolveAccess } from '../../src/permissions/resolve-access.ts';
import { parseFilterParameter } from '../../src/query/parse-filter-parameter.ts';
import { DEFAULT_FILTER_LIMITS } from '../../src/query/filter-limits.ts';
import { DEFAULT_LIKE_PATTERN_LIMITS } from '../../src/query/like-pattern-limits.ts';
import { compileResource } from '../../src/resources/compile-resource.ts';
import { uuidv7 } from '../../src/store/uuid-v7.ts';
import { createEventView, viewIndexOf, type EventView } from '../../src/stream/event-view.ts';
import { LiveViews } from '../../src/stream/live-views.ts';
import { EVENT_KINDS } from '../../src/stream/stream-query.ts';
import type { EventHub } from '../../src/events/event-hub.ts';

const items = compileResource('items', {
  fields: {
    title: { type: 'string' },
    views: { type: 'integer' },
    rating: { type: 'number' },
    active: { type: 'boolean' },
    day: { type: 'date' },
    at: { type: 'datetime' },
    status: { type: 'enum', values: ['draft', 'published', 'archived'] },
    tags: { type: 'json' },
  },
  permissions: {},
});
const FIELDS = ['title', 'views', 'rating', 'active', 'day', 'at', 'status', 'tags'];

const VALUES: Record<string, unknown[]> = {
  title: ['Alpha', 'alpha', 'émile', '', 'zzz', null],
  views: [-1, 0, 3, 7, null],
  rating: [-1, 0, 0.5, 3, null],
  active: [true, false, null],
  day: ['2024-01-10', '2024-02-11', null],
  // The same instant written with two offsets: equal as instants, different as text.
  at: ['2024-01-01T10:00:00.000Z', '2024-01-01T12:00:00+02:00', '2024-05-01T00:00:00.000Z', null],
  status: ['draft', 'published', 'archived', null],
};

const pick = <T>(list: readonly T[], i: number): T => list[i % list.length]!;
const RECORDS: RecordValues[] = Array.from({ length: 30 }, (_, i) => ({
  id: `00000000-0000-7000-8000-${String(i).padStart(12, '0')}`,
  title: pick(VALUES.title!, i),
  views: pick(VALUES.views!, i * 3),
  rating: pick(VALUES.rating!, i * 7),
  active: pick(VALUES.active!, i),
  day: pick(VALUES.day!, i * 5),
  at: pick(VALUES.at!, i * 3 + 1),
  status: pick(VALUES.status!, i * 11),
  tags: i % 3 === 0 ? null : ['x'],
}));

const field = fc.constantFrom(...Object.keys(VALUES));
const condition: fc.Arbitrary<Record<string, unknown>> = fc.oneof(
  field.chain((name) =>
    fc
      .record({
        op: fc.constantFrom('eq', 'eq', 'eq', 'neq', 'gt'),
        value: fc.constantFrom(...VALUES[name]!),
      })
      .map(({ op, value }) => ({ [name]: { [name === 'active' && op === 'gt' ? 'eq' : op]: value } })),
  ),
  field.chain((name) =>
    fc
      .array(fc.constantFrom(...VALUES[name]!), { maxLength: 3 })
      .chain((list) => fc.constantFrom('in', 'nin').map((op) => ({ [name]: { [op]: list } }))),
  ),
  fc.constantFrom(...Object.keys(VALUES), 'tags').map((name) => ({ [name]: { is_null: true } })),
  fc.constant({ tags: { contains: 'x' } }),
  fc.constant({ title: { like: 'a%' } }),
);
const tree: fc.Arbitrary<Record<string, unknown>> = fc.letrec<{ node: Record<string, unknown> }>((tie) => ({
  node: fc.oneof(
    { maxDepth: 3, depthSize: 'small' },
    condition,
    fc.array(tie('node'), { minLength: 0, maxLength: 3 }).map((nodes) => ({ _and: nodes })),
    fc.array(tie('node'), { minLength: 0, maxLength: 3 }).map((nodes) => ({ _or: nodes })),
    tie('node').map((node) => ({ _not: node })),
  ),
})).node;

function viewOf(filter: Record<string, unknown>): EventView {
  const node = parseFilterParameter(JSON.stringify(filter), items, {
    readable: new Set(items.fieldNames),
    vars: { userId: 'u1', role: 'admin' },
    limits: DEFAULT_FILTER_LIMITS,
    likeLimits: DEFAULT_LIKE_PATTERN_LIMITS,
  });
  const grant = resolveAccess(items, { kind: 'admin' } as AdminPrincipal, 'read');
  return createEventView(items, grant, { kinds: new Set(EVENT_KINDS), fields: FIELDS, filter: node });
}

function changeEvent(old: RecordValues | null, next: RecordValues | null, deleted = false): RecordEvent {
  const kind = deleted ? 'deleted' : old === null ? 'created' : 'updated';
  const changed = FIELDS.filter((name) => old === null || next === null || old[name] !== next[name]);
  return {
    id: uuidv7(),
    type: `items.${kind}`,
    kind,
    resource: 'items',
    resourceId: String((next ?? old)!.id),
    createdAt: new Date().toISOString(),
    data: {
      old,
      new: next,
      changes: {
        added: old === null ? changed : [],
        updated: old !== null && next !== null ? changed : [],
        removed: [],
      },
    },
    sessionVariables: { userId: null, role: 'admin' },
    traceContext: {},
  };
}

/** Creates, updates from one record's values to another's (same id), soft and hard deletes. */
function events(): RecordEvent[] {
  const out: RecordEvent[] = [];
  for (const [i, record] of RECORDS.entries()) {
    const other = { ...RECORDS[(i * 7 + 3) % RECORDS.length]!, id: record.id };
    out.push(changeEvent(null, record), changeEvent(record, other), changeEvent(other, null, true));
    out.push(changeEvent(record, record, true));
  }
  return out;
}

/** The views the index hands each event to, through LiveViews with a recording group per view. */
function indexedHits(views: EventView[], all: RecordEvent[]): Set<EventView>[] {
  const live = LiveViews.of({} as EventHub, 'items');
  let hits = new Set<EventView>();
  for (const view of views) live.add({ queue: () => hits.add(view) }, viewIndexOf(view)!);
  return all.map((event) => {
    hits = new Set();
    live.dispatch(event);
    return hits;
  });
}

describe('live stream views indexed by their filters', () => {
  const samples = fc.sample(tree, { numRuns: 400, seed: 38 });
  const views = [...new Set(samples.map(viewOf))];
  const all = events();

  it('hands every event to every view that delivers it (400 generated filters)', () => {
    const hits = indexedHits(views, all);
    let skipped = 0;
    let delivered = 0;
    for (const [i, event] of all.entries()) {
      for (const view of views) {
        const viewed = view(event);
        if (viewed !== null) delivered += 1;
        if (hits[i]!.has(view)) continue;
        skipped += 1;
        assert.equal(viewed, null, `event ${i} (${event.kind}) skipped a view that delivers it`);
      }
    }
    // Not trivial: the filters deliver some events, and the index spares a good share of the tests.
    assert.ok(delivered > all.length, `only ${delivered} deliveries`);
    assert.ok(skipped > (views.length * all.length) / 10, `only ${skipped} of ${views.length * all.length} skipped`);
  });

  it('finds exactly one of 1,000 views on distinct values, and views without an equality condition always', () => {
    const distinct = Array.from({ length: 1000 }, (_, i) => viewOf({ title: { eq: `t${i}` } }));
    const anyTitle = viewOf({ _not: { title: { eq: 't1' } } });
    const either = viewOf({ _or: [{ views: { in: [1, 2] } }, { title: { is_null: true } }] });
    const moved = changeEvent({ id: 'a', title: 't5', views: 0 }, { id: 'a', title: 't7', views: 2 });
    const [hits] = indexedHits([...distinct, anyTitle, either], [moved]);
    assert.deepEqual(
      [...hits!].map((view) => view(moved)?.kind ?? null),
      ['updated', 'deleted', 'created', 'created'],
      'the _not view is always tested, t5 sees it leave, t7 sees it enter, the _or view sees it enter through views=2',
    );
    assert.equal(hits!.has(distinct[5]!) && hits!.has(distinct[7]!), true);
  });
});

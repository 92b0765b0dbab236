// Property: a generated `_filter` tree, read by parseFilterParameter, selects the same rows in SQL (lists)
// as in memory (streams), on each database; and both databases select the same rows. Rows hold nulls in
// every column, case and Unicode variants and LIKE metacharacters.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { ResourceDefinition } from '../../src/config/config-types.ts';
import { ResourceRegistry } from '../../src/resources/resource-registry.ts';
import type { Resource } from '../../src/resources/resource.ts';
import { createStore, type Store } from '../../src/store/create-store.ts';
import { applyResourceSchema } from '../../src/cluster/resource-schema.ts';
import { decodeRow, encodeValues } from '../../src/records/record-codec.ts';
import { filterToSql } from '../../src/query/filter-to-sql.ts';
import { filterToPredicate } from '../../src/query/filter-to-predicate.ts';
import { parseFilterParameter } from '../../src/query/parse-filter-parameter.ts';
import { DEFAULT_FILTER_LIMITS } from '../../src/query/filter-limits.ts';
import { DEFAULT_LIKE_PATTERN_LIMITS } from '../../src/query/like-pattern-limits.ts';
import { createTestDatabase, testDialects, type TestDatabase } from '../helpers/test-databases.ts';

const ITEMS: ResourceDefinition = {
  fields: {
    title: { type: 'string' },
    views: { type: 'integer' },
    rating: { type: 'number' },
    active: { type: 'boolean' },
    day: { type: 'date' },
    status: { type: 'enum', values: ['draft', 'published', 'archived'] },
    owner: { type: 'string' },
    tags: { type: 'json' },
  },
};

const TITLES = ['Alpha', 'alpha', 'ÉMILE', 'émile', '100%', 'a_b', 'beta', ''];
const ROWS = Array.from({ length: 24 }, (_, i) => ({
  title: i % 7 === 6 ? null : TITLES[i % TITLES.length],
  views: i % 5 === 4 ? null : ((i * 7) % 11) - 3,
  rating: i % 4 === 3 ? null : ((i * 13) % 9) / 2 - 1,
  active: i % 3 === 2 ? null : i % 2 === 0,
  day: i % 6 === 5 ? null : `2024-0${1 + (i % 3)}-1${i % 10}`,
  status: i % 8 === 7 ? null : ['draft', 'published', 'archived'][i % 3],
  owner: i % 5 === 0 ? null : ['u1', 'u2', 'u3'][i % 3],
  tags: i % 4 === 0 ? null : [['x'], ['x', 'y'], [], ['y', 1]][i % 4],
}));

const VALUES: Record<string, fc.Arbitrary<unknown>> = {
  title: fc.constantFrom('Alpha', 'alpha', 'émile', 'ÉMILE', 'beta', '', 'zzz', null),
  views: fc.oneof(fc.integer({ min: -4, max: 8 }), fc.constant(null)),
  rating: fc.oneof(fc.constantFrom(-1, 0, 0.5, 1.5, 3), fc.constant(null)),
  active: fc.constantFrom(true, false, null),
  day: fc.constantFrom('2024-01-10', '2024-02-11', '2024-03-15', null),
  status: fc.constantFrom('draft', 'published', 'archived', null),
  owner: fc.constantFrom('u1', 'u2', '$userId', '$role', null),
};
const ORDERED = ['eq', 'neq', 'lt', 'lte', 'gt', 'gte'];

const condition: fc.Arbitrary<Record<string, unknown>> = fc.oneof(
  fc
    .record({ field: fc.constantFrom(...Object.keys(VALUES)), op: fc.constantFrom(...ORDERED) })
    .chain(({ field, op }) => {
      // Booleans and enums take eq/neq only among the ordered comparisons (their types say so).
      const allowed = field === 'active' ? (op === 'eq' || op === 'neq' ? op : 'eq') : op;
      return VALUES[field]!.map((value) => ({ [field]: { [allowed]: value } }));
    }),
  fc
    .record({ field: fc.constantFrom(...Object.keys(VALUES)), op: fc.constantFrom('in', 'nin') })
    .chain(({ field, op }) => fc.array(VALUES[field]!, { maxLength: 3 }).map((list) => ({ [field]: { [op]: list } }))),
  fc
    .constantFrom(...Object.keys(VALUES), 'tags')
    .chain((field) => fc.constantFrom('is_null', 'is_not_null').map((op) => ({ [field]: { [op]: true } }))),
  fc
    .record({ field: fc.constantFrom('title', 'owner'), op: fc.constantFrom('like', 'ilike', 'contains', 'regex') })
    .chain(({ field, op }) =>
      fc
        .constantFrom(
          ...(op === 'regex'
            ? ['^a', 'a$', '[ée]mile', '^$', '\\d', '(?i)alpha']
            : ['a%', '%a%', '_', 'é%', '100\\%', 'a\\_b', 'u']),
        )
        .map((value) => ({
          [field]: { [op]: op === 'contains' ? value.replaceAll('%', '').replaceAll('\\', '') : value },
        })),
    ),
  fc.constantFrom('x', 'y', 1).map((value) => ({ tags: { contains: value } })),
);

const tree: fc.Arbitrary<Record<string, unknown>> = fc.letrec<{ node: Record<string, unknown> }>((tie) => ({
  node: fc.oneof(
    { maxDepth: 4, depthSize: 'small' },
    condition,
    fc.array(tie('node'), { minLength: 0, maxLength: 3 }).map((nodes) => ({ _and: nodes })),
    fc.array(tie('node'), { minLength: 0, maxLength: 3 }).map((nodes) => ({ _or: nodes })),
    tie('node').map((node) => ({ _not: node })),
  ),
})).node;

const selections = new Map<string, string[][]>();
const SAMPLES = fc.sample(tree, { numRuns: 300, seed: 38 });

for (const dialect of testDialects()) {
  describe(`_filter agreement: SQL and in-memory select the same rows (${dialect})`, () => {
    let database: TestDatabase;
    let store: Store;
    let resource: Resource;
    let records: Record<string, unknown>[];

    before(async () => {
      database = await createTestDatabase(dialect);
      store = createStore(database.url);
      const registry = new ResourceRegistry({ resources: { items: ITEMS } });
      await applyResourceSchema(store, registry, { allowDestructive: false });
      resource = registry.require('items');
      for (const [index, row] of ROWS.entries()) {
        const at = new Date(Date.UTC(2024, 0, 1, 0, 0, index)).toISOString();
        const id = `00000000-0000-7000-8000-${String(index).padStart(12, '0')}`;
        await store.db
          .insertInto(resource.table)
          .values({ id, ...encodeValues(resource, store.dialect, { ...row, created_at: at, updated_at: at }) })
          .execute();
      }
      const rows = await store.db.selectFrom(resource.table).selectAll().orderBy('id').execute();
      records = rows.map((row) => decodeRow(resource, store.dialect, row));
    });

    after(async () => {
      await store?.close();
      await database?.drop();
    });

    it('agrees on 300 generated trees', async () => {
      const readable = new Set(resource.fieldNames);
      const selected: string[][] = [];
      for (const sample of SAMPLES) {
        const node = parseFilterParameter(JSON.stringify(sample), resource, {
          readable,
          vars: { userId: 'u1', role: 'u2' },
          limits: DEFAULT_FILTER_LIMITS,
          likeLimits: DEFAULT_LIKE_PATTERN_LIMITS,
        });
        const rows = await store.db
          .selectFrom(resource.table)
          .select('id')
          .where(filterToSql(node, resource, store.dialect))
          .orderBy('id')
          .execute();
        const bySql = rows.map((row) => String(row.id));
        const matches = filterToPredicate(node, resource);
        const inMemory = records.filter((record) => matches(record)).map((record) => String(record.id));
        assert.deepEqual(inMemory, bySql, `_filter ${JSON.stringify(sample)}`);
        selected.push(bySql);
      }
      // The trees must tell rows apart, or agreement would be trivial.
      const partial = selected.filter((ids) => ids.length > 0 && ids.length < ROWS.length).length;
      assert.ok(partial >= 100, `only ${partial} of ${SAMPLES.length} trees select some but not all rows`);
      selections.set(dialect, selected);
    });
  });
}

describe('_filter agreement across databases', () => {
  it('selects the same rows on SQLite and PostgreSQL', (context) => {
    const sqlite = selections.get('sqlite');
    const postgres = selections.get('postgres');
    if (!sqlite || !postgres) {
      context.skip('one database configured');
      return;
    }
    for (const [i, sample] of SAMPLES.entries()) {
      assert.deepEqual(postgres[i], sqlite[i], `_filter ${JSON.stringify(sample)}`);
    }
  });
});

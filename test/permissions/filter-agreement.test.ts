// filterToPredicate (in memory, used by the stream) must select exactly the rows filterToSql selects
// (used by lists): the same filters over the same rows, on every database.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { FilterDefinition, ResourceDefinition } from '../../src/config/config-types.ts';
import { ResourceRegistry } from '../../src/resources/resource-registry.ts';
import type { Resource } from '../../src/resources/resource.ts';
import { createStore, type Store } from '../../src/store/create-store.ts';
import { applyResourceSchema } from '../../src/cluster/resource-schema.ts';
import { decodeRow, encodeValues } from '../../src/records/record-codec.ts';
import { compileFilter } from '../../src/query/compile-filter.ts';
import { filterToSql } from '../../src/query/filter-to-sql.ts';
import { filterToPredicate } from '../../src/query/filter-to-predicate.ts';
import type { FilterNode } from '../../src/model/filter-node.ts';
import type { SessionVariables } from '../../src/model/session-variables.ts';
import { createTestDatabase, testDialects, type TestDatabase, type TestDialect } from '../helpers/test-databases.ts';

const ITEMS: ResourceDefinition = {
  fields: {
    title: { type: 'string' },
    body: { type: 'text' },
    views: { type: 'integer' },
    rating: { type: 'number' },
    active: { type: 'boolean' },
    published_at: { type: 'datetime' },
    day: { type: 'date' },
    tags: { type: 'json' },
    status: { type: 'enum', values: ['draft', 'published', 'archived'] },
    owner: { type: 'string' },
  },
};

type Row = Record<string, unknown>;

// Thirty rows: nulls in every column somewhere, case and Unicode variants, LIKE metacharacters in the data.
const ROWS: Row[] = [
  {
    title: 'Alpha',
    body: 'first post',
    views: 1,
    rating: 1.5,
    active: true,
    published_at: '2024-01-01T10:00:00.000Z',
    day: '2024-01-01',
    tags: ['red', 'blue'],
    status: 'published',
    owner: 'u1',
  },
  {
    title: 'alpha',
    body: 'lower case twin',
    views: 2,
    rating: 2.25,
    active: false,
    published_at: '2024-01-02T10:00:00.000Z',
    day: '2024-01-02',
    tags: ['red'],
    status: 'draft',
    owner: 'u2',
  },
  {
    title: 'ALPHA',
    body: null,
    views: 3,
    rating: null,
    active: null,
    published_at: null,
    day: null,
    tags: null,
    status: null,
    owner: null,
  },
  {
    title: 'Beta',
    body: 'has 100% of it',
    views: 10,
    rating: -3,
    active: true,
    published_at: '2024-02-01T00:00:00.000Z',
    day: '2024-02-01',
    tags: [1, 2, 3],
    status: 'published',
    owner: 'u1',
  },
  {
    title: 'beta_test',
    body: 'under_score',
    views: 20,
    rating: 0,
    active: false,
    published_at: '2024-02-15T23:59:59.999Z',
    day: '2024-02-15',
    tags: ['1', '2'],
    status: 'archived',
    owner: 'u2',
  },
  {
    title: 'betaXtest',
    body: 'no underscore',
    views: 0,
    rating: 0.1,
    active: true,
    published_at: '2023-12-31T23:00:00.000Z',
    day: '2023-12-31',
    tags: [],
    status: 'draft',
    owner: 'u3',
  },
  {
    title: 'Gamma',
    body: 'line one\nline two',
    views: -5,
    rating: 99.99,
    active: true,
    published_at: '2024-03-01T12:00:00.000Z',
    day: '2024-03-01',
    tags: { color: 'red' },
    status: 'published',
    owner: 'u1',
  },
  {
    title: 'gamma ray',
    body: 'back\\slash',
    views: 7,
    rating: 7,
    active: false,
    published_at: '2024-03-01T12:00:00.001Z',
    day: '2024-03-01',
    tags: 'red',
    status: 'draft',
    owner: 'u3',
  },
  {
    title: 'Émile',
    body: 'accented capital',
    views: 8,
    rating: 8.5,
    active: true,
    published_at: '2024-04-01T00:00:00.000Z',
    day: '2024-04-01',
    tags: ['émile'],
    status: 'published',
    owner: 'u2',
  },
  {
    title: 'émile',
    body: 'accented lower',
    views: 9,
    rating: 9.5,
    active: null,
    published_at: '2024-04-02T00:00:00.000Z',
    day: '2024-04-02',
    tags: ['e', 'é'],
    status: 'draft',
    owner: 'u1',
  },
  {
    title: 'Zeta',
    body: 'zzz',
    views: 100,
    rating: 1e6,
    active: false,
    published_at: '2025-01-01T00:00:00.000Z',
    day: '2025-01-01',
    tags: [true, false],
    status: 'archived',
    owner: 'u2',
  },
  {
    title: 'zeta',
    body: null,
    views: null,
    rating: null,
    active: false,
    published_at: '2025-01-01T00:00:00.000Z',
    day: '2025-01-01',
    tags: [null],
    status: 'draft',
    owner: null,
  },
  {
    title: '100%',
    body: 'percent title',
    views: 100,
    rating: 100,
    active: true,
    published_at: '2024-05-05T05:05:05.000Z',
    day: '2024-05-05',
    tags: ['%'],
    status: 'published',
    owner: 'u3',
  },
  {
    title: 'a_b',
    body: 'underscore title',
    views: 11,
    rating: 11,
    active: true,
    published_at: '2024-05-06T00:00:00.000Z',
    day: '2024-05-06',
    tags: ['a_b'],
    status: 'draft',
    owner: 'u1',
  },
  {
    title: 'aXb',
    body: 'x title',
    views: 12,
    rating: 12,
    active: false,
    published_at: '2024-05-07T00:00:00.000Z',
    day: '2024-05-07',
    tags: ['aXb'],
    status: 'published',
    owner: 'u2',
  },
  {
    title: 'a\\b',
    body: 'backslash title',
    views: 13,
    rating: 13,
    active: true,
    published_at: '2024-05-08T00:00:00.000Z',
    day: '2024-05-08',
    tags: null,
    status: 'draft',
    owner: 'u3',
  },
  {
    title: null,
    body: 'no title',
    views: 14,
    rating: 14,
    active: true,
    published_at: '2024-05-09T00:00:00.000Z',
    day: '2024-05-09',
    tags: ['x'],
    status: 'published',
    owner: 'u1',
  },
  {
    title: null,
    body: null,
    views: null,
    rating: null,
    active: null,
    published_at: null,
    day: null,
    tags: null,
    status: null,
    owner: null,
  },
  {
    title: '',
    body: '',
    views: 0,
    rating: 0,
    active: false,
    published_at: '1970-01-01T00:00:00.000Z',
    day: '1970-01-01',
    tags: [''],
    status: 'draft',
    owner: '',
  },
  {
    title: 'Delta 42',
    body: 'numbers 123 here',
    views: 42,
    rating: 4.2,
    active: true,
    published_at: '2024-06-01T00:00:00.000Z',
    day: '2024-06-01',
    tags: [42],
    status: 'published',
    owner: 'u2',
  },
  {
    title: 'delta',
    body: 'DELTA upper body',
    views: 43,
    rating: -4.2,
    active: false,
    published_at: '2024-06-02T00:00:00.000Z',
    day: '2024-06-02',
    tags: ['delta', 42],
    status: 'archived',
    owner: 'u3',
  },
  {
    title: '日本語',
    body: 'kanji',
    views: 5,
    rating: 5,
    active: true,
    published_at: '2024-07-01T00:00:00.000Z',
    day: '2024-07-01',
    tags: ['日本'],
    status: 'published',
    owner: 'u1',
  },
  {
    title: '😀 smile',
    body: 'emoji first',
    views: 6,
    rating: 6,
    active: false,
    published_at: '2024-07-02T00:00:00.000Z',
    day: '2024-07-02',
    tags: ['😀'],
    status: 'draft',
    owner: 'u2',
  },
  {
    title: '\uFF21 fullwidth',
    body: 'BMP above surrogates',
    views: 15,
    rating: 15,
    active: true,
    published_at: '2024-07-03T00:00:00.000Z',
    day: '2024-07-03',
    tags: [],
    status: 'published',
    owner: 'u3',
  },
  {
    title: 'omega',
    body: 'foo bar',
    views: 16,
    rating: 16,
    active: null,
    published_at: '2024-07-04T00:00:00.000Z',
    day: '2024-07-04',
    tags: ['foo'],
    status: 'draft',
    owner: 'u1',
  },
  {
    title: 'Omega',
    body: 'foobar',
    views: 17,
    rating: 17,
    active: true,
    published_at: '2024-07-05T00:00:00.000Z',
    day: '2024-07-05',
    tags: [['nested']],
    status: 'published',
    owner: 'u2',
  },
  {
    title: 'theta',
    body: 'a\nb',
    views: 18,
    rating: 18,
    active: false,
    published_at: '2024-07-06T00:00:00.000Z',
    day: '2024-07-06',
    tags: [{ k: 1 }],
    status: 'archived',
    owner: 'u3',
  },
  {
    title: 'iota',
    body: 'tab\there',
    views: 19,
    rating: 19,
    active: true,
    published_at: '2024-07-07T00:00:00.000Z',
    day: '2024-07-07',
    tags: ['1'],
    status: 'published',
    owner: 'u1',
  },
  {
    title: 'kappa',
    body: 'mixed Case Body',
    views: 21,
    rating: 21,
    active: false,
    published_at: '2024-07-08T00:00:00.000Z',
    day: '2024-07-08',
    tags: [1],
    status: 'draft',
    owner: 'u2',
  },
  {
    title: 'lambda',
    body: 'end',
    views: 22,
    rating: 22,
    active: true,
    published_at: '2024-07-09T00:00:00.000Z',
    day: '2024-07-09',
    tags: ['red', 'green'],
    status: 'published',
    owner: 'u3',
  },
];

interface FilterCase {
  name: string;
  filter: FilterDefinition;
  /** Used instead of compiling `filter`, for what compileFilter cannot express. */
  node?: FilterNode;
  vars?: SessionVariables;
  /** Known disagreement on one dialect: reported, not fixed here (the test runs as a todo there). */
  todo?: { dialect: TestDialect; reason: string };
}

const U1: SessionVariables = { userId: 'u1', role: 'user' };
const ANONYMOUS: SessionVariables = { userId: null, role: 'admin' };

const CASES: FilterCase[] = [
  // eq / neq on every kind
  { name: 'eq text', filter: { title: { eq: 'alpha' } } },
  { name: 'eq text, unicode', filter: { title: { eq: 'émile' } } },
  { name: 'eq empty string', filter: { title: { eq: '' } } },
  { name: 'eq integer', filter: { views: { eq: 100 } } },
  { name: 'eq number', filter: { rating: { eq: 2.25 } } },
  { name: 'eq boolean true', filter: { active: { eq: true } } },
  { name: 'eq boolean false', filter: { active: { eq: false } } },
  { name: 'eq datetime with an offset (same instant)', filter: { published_at: { eq: '2024-01-01T12:00:00+02:00' } } },
  { name: 'eq date', filter: { day: { eq: '2024-03-01' } } },
  { name: 'eq enum', filter: { status: { eq: 'draft' } } },
  { name: 'eq null is is_null', filter: { body: { eq: null } } },
  { name: 'neq text excludes nulls', filter: { title: { neq: 'alpha' } } },
  { name: 'neq boolean excludes nulls', filter: { active: { neq: true } } },
  { name: 'neq null is is_not_null', filter: { body: { neq: null } } },
  { name: 'gt null matches nothing', filter: { views: { gt: null } } },
  // ordering
  { name: 'gt integer', filter: { views: { gt: 15 } } },
  { name: 'gte integer', filter: { views: { gte: 15 } } },
  { name: 'lt integer, negative', filter: { views: { lt: 0 } } },
  { name: 'lte number', filter: { rating: { lte: 0.1 } } },
  { name: 'gt number against integer operand', filter: { rating: { gt: 99 } } },
  { name: 'gt datetime', filter: { published_at: { gt: '2024-03-01T12:00:00.000Z' } } },
  { name: 'lte datetime with an offset', filter: { published_at: { lte: '2024-01-01T00:00:00-10:00' } } },
  { name: 'lt date', filter: { day: { lt: '2024-02-01' } } },
  { name: 'gt text is binary order', filter: { title: { gt: 'Zeta' } } },
  { name: 'lt text, lower case sorts after upper', filter: { title: { lt: 'a' } } },
  { name: 'gt text above surrogates', filter: { title: { gt: '\uFF00' } } },
  { name: 'gte created_at system field', filter: { created_at: { gte: '2024-01-01T00:00:15.000Z' } } },
  // lists
  { name: 'in integer', filter: { views: { in: [1, 2, 100] } } },
  { name: 'in with a null element', filter: { views: { in: [1, null] } } },
  { name: 'in empty list', filter: { title: { in: [] } } },
  { name: 'in text', filter: { status: { in: ['draft', 'archived'] } } },
  { name: 'in id', filter: { id: { in: ['r01', 'r05', 'r30'] } } },
  { name: 'nin integer excludes nulls', filter: { views: { nin: [1, 2, 3] } } },
  { name: 'nin with a null element matches nothing', filter: { views: { nin: [1, null] } } },
  { name: 'nin empty list is is_not_null', filter: { views: { nin: [] } } },
  { name: 'nin boolean', filter: { active: { nin: [true] } } },
  // presence
  { name: 'is_null', filter: { body: { is_null: true } } },
  { name: 'is_not_null json', filter: { tags: { is_not_null: true } } },
  // patterns
  { name: 'like prefix, case-sensitive', filter: { title: { like: 'a%' } } },
  { name: 'like single character', filter: { title: { like: 'a_b' } } },
  { name: 'like escaped underscore', filter: { title: { like: 'a\\_b' } } },
  { name: 'like escaped percent', filter: { title: { like: '%\\%' } } },
  { name: 'like literal backslash', filter: { title: { like: 'a\\\\b' } } },
  { name: 'like percent spans a line break', filter: { body: { like: 'line%two' } } },
  { name: 'like underscore is one code point', filter: { title: { like: '_ smile' } } },
  { name: 'like with regex metacharacters in the pattern', filter: { title: { like: '100%' } } },
  { name: 'like on an integer column reads its digits', filter: { views: { like: '1%' } } },
  // Built as nodes: compileFilter runs a pattern through the field type's normalizer, which throws for
  // date and datetime fields (reported; a rule with such a filter fails at request time).
  {
    name: 'like on a date column',
    filter: {},
    node: { kind: 'condition', field: 'day', op: 'like', value: '2024-07-%' },
  },
  { name: 'contains on an integer column', filter: { views: { contains: '4' } } },
  { name: 'ilike ASCII', filter: { title: { ilike: 'alpha' } } },
  { name: 'ilike prefix', filter: { body: { ilike: 'delta%' } } },
  { name: 'ilike non-ASCII', filter: { title: { ilike: 'ÉMILE' } } },
  { name: 'regex anchored class', filter: { title: { regex: '^[A-Z]' } } },
  { name: 'regex digits', filter: { body: { regex: '\\d{3}' } } },
  { name: 'regex alternation', filter: { title: { regex: '^(alpha|beta)' } } },
  { name: 'regex Unicode property', filter: { title: { regex: '^\\p{Lu}' } } },
  { name: 'regex word boundary', filter: { body: { regex: '\\bbar' } } },
  { name: 'regex dot and a line break', filter: { body: { regex: 'a.b' } } },
  { name: 'regex case-insensitive, non-ASCII', filter: { title: { regex: '(?i)^ÉMILE$' } } },
  { name: 'regex \\w is ASCII', filter: { title: { regex: '^\\w+$' } } },
  { name: 'regex \\s and \\S', filter: { body: { regex: '\\S\\s\\S' } } },
  { name: 'regex negated class crosses a line break', filter: { body: { regex: 'a[^x]b' } } },
  { name: 'regex dot-all flag', filter: { body: { regex: '(?s)a.b' } } },
  { name: 'regex multi-line anchors', filter: { body: { regex: '(?m)^line two$' } } },
  { name: 'regex quoted literal', filter: { title: { regex: '\\Qa_b\\E' } } },
  { name: 'regex named group', filter: { title: { regex: '^(?P<first>[Aa])lpha' } } },
  { name: 'regex letters class', filter: { title: { regex: '^\\p{L}+$' } } },
  { name: 'regex class with escapes', filter: { title: { regex: '[\\d%]{2}' } } },
  { name: 'regex hex escape', filter: { title: { regex: '\\x{FF21}' } } },
  { name: 'regex astral character', filter: { title: { regex: '^😀' } } },
  { name: 'contains text', filter: { body: { contains: 'line' } } },
  { name: 'contains text is case-sensitive', filter: { body: { contains: 'DELTA' } } },
  { name: 'contains empty string', filter: { title: { contains: '' } } },
  { name: 'contains json string element', filter: { tags: { contains: 'red' } } },
  { name: 'contains json string element, arrays only', filter: { tags: { contains: 'blue' } } },
  { name: 'contains json number element', filter: { tags: { contains: 42 } } },
  { name: 'contains json: a number is not its string', filter: { tags: { contains: '1' } } },
  // logic
  { name: 'several fields are AND-ed', filter: { status: { eq: 'published' }, active: { eq: true } } },
  { name: 'several operators on one field', filter: { views: { gte: 5, lt: 20 } } },
  { name: '_or', filter: { _or: [{ views: { lt: 2 } }, { title: { eq: 'Zeta' } }] } },
  {
    name: '_and inside _or',
    filter: { _or: [{ _and: [{ status: { eq: 'draft' } }, { owner: { eq: 'u1' } }] }, { rating: { gt: 50 } }] },
  },
  { name: '_not of a comparison includes nulls', filter: { _not: { views: { gt: 10 } } } },
  { name: '_not of is_null', filter: { _not: { title: { is_null: true } } } },
  { name: '_not of neq', filter: { _not: { active: { neq: true } } } },
  { name: '_not _not', filter: { _not: { _not: { views: { gt: 10 } } } } },
  { name: '_not of _or with unknowns', filter: { _not: { _or: [{ views: { gt: 10 } }, { title: { like: 'a%' } }] } } },
  { name: '_not of _and with unknowns', filter: { _not: { _and: [{ active: { eq: true } }, { rating: { gt: 5 } }] } } },
  { name: '_not of nin with a null element', filter: { _not: { views: { nin: [1, null] } } } },
  { name: 'empty _or matches nothing', filter: { _or: [] } },
  { name: 'empty _and matches everything', filter: { _and: [] } },
  { name: 'empty filter matches everything', filter: {} },
  // session variables
  { name: '$userId', filter: { owner: { eq: '$userId' } }, vars: U1 },
  {
    name: '$userId or published',
    filter: { _or: [{ status: { eq: 'published' } }, { owner: { eq: '$userId' } }] },
    vars: U1,
  },
  { name: '$userId in a list', filter: { owner: { in: ['$userId', 'u3'] } }, vars: U1 },
  {
    name: '$role',
    filter: { _or: [{ status: { eq: '$role' } }, { title: { eq: 'alpha' } }] },
    vars: { userId: 'u1', role: 'draft' },
  },
  { name: '$userId without a user matches nothing', filter: { owner: { eq: '$userId' } }, vars: ANONYMOUS },
  {
    name: '_not of $userId without a user matches everything',
    filter: { _not: { owner: { eq: '$userId' } } },
    vars: ANONYMOUS,
  },
];

function idOf(index: number): string {
  return `r${String(index + 1).padStart(2, '0')}`;
}

async function seed(store: Store, resource: Resource): Promise<void> {
  for (const [index, row] of ROWS.entries()) {
    const at = new Date(Date.UTC(2024, 0, 1, 0, 0, index)).toISOString();
    await store.db
      .insertInto(resource.table)
      .values({ id: idOf(index), ...encodeValues(resource, store.dialect, { ...row, created_at: at, updated_at: at }) })
      .execute();
  }
}

for (const dialect of testDialects()) {
  describe(`filter agreement: filterToPredicate selects what filterToSql selects (${dialect})`, () => {
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
      await seed(store, resource);
      const rows = await store.db.selectFrom(resource.table).selectAll().orderBy('id').execute();
      records = rows.map((row) => decodeRow(resource, store.dialect, row));
    });

    after(async () => {
      await store?.close();
      await database?.drop();
    });

    it('decodes every seeded row', () => {
      assert.equal(records.length, ROWS.length);
    });

    for (const testCase of CASES) {
      const todo = testCase.todo?.dialect === dialect ? testCase.todo.reason : undefined;
      it(testCase.name, { todo }, async () => {
        const node = testCase.node ?? compileFilter(testCase.filter, resource, testCase.vars ?? U1);
        const rows = await store.db
          .selectFrom(resource.table)
          .select('id')
          .where(filterToSql(node, resource, store.dialect))
          .orderBy('id')
          .execute();
        const bySql = rows.map((row) => String(row.id));
        const matches = filterToPredicate(node, resource);
        const inMemory = records.filter((record) => matches(record)).map((record) => String(record.id));
        assert.deepEqual(inMemory, bySql, `filter ${JSON.stringify(testCase.filter)}`);
      });
    }
  });
}

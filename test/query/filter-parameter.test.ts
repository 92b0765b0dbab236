// `_filter=<JSON>` on lists and related lists: the permission filter grammar (`_and`, `_or`, `_not`, every
// operator a field's type takes, `$userId`, `$role`), joined to `field__op` parameters by AND, bounded,
// every problem a 400 naming `_filter` and the JSON Pointer inside it; the same answers on both databases.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';
import { testDialects } from '../helpers/test-databases.ts';

interface ErrorObject {
  code: string;
  status: string;
  detail: string;
  source?: { parameter?: string; pointer?: string };
  meta?: { pointer?: string };
}
interface ListDocument {
  data: { id: string; attributes: Record<string, unknown> }[];
  errors?: ErrorObject[];
  links?: Record<string, string>;
}

const POSTS = [
  { title: 'a-published-low', status: 'published', views: 1, rating: 1.5, tags: ['x'] },
  { title: 'b-published-high', status: 'published', views: 50, rating: null, tags: null },
  { title: 'c-draft-high', status: 'draft', views: 40, rating: 4, tags: ['y'] },
  { title: 'd-draft-low', status: 'draft', views: 2, rating: null, tags: ['x', 'y'] },
  { title: 'É-draft-unicode', status: 'draft', views: 0, rating: -1, tags: [] },
];

/** Filters whose answers both databases must give alike (collected per dialect, compared at the end). */
const SHARED_FILTERS: unknown[] = [
  { _or: [{ status: { eq: 'published' } }, { views: { gte: 10 } }] },
  { _not: { rating: { is_null: true } } },
  { rating: { eq: null } },
  { _not: { rating: { gt: 1 } } },
  { rating: { nin: [1.5, 4] } },
  { title: { ilike: 'é%' } },
  { title: { regex: '^[a-c]-' }, _not: { status: { in: ['draft'] } } },
  { tags: { contains: 'x' } },
  { _and: [{ views: { lt: 45 } }, { _or: [{ rating: { lte: 1.5 } }, { rating: { is_null: true } }] }] },
];
const answers = new Map<string, string[][]>();

const filterQuery = (filter: unknown, extra = '') =>
  `/v1/posts?_sort=title&_filter=${encodeURIComponent(typeof filter === 'string' ? filter : JSON.stringify(filter))}${extra}`;

for (const dialect of testDialects()) {
  describe(`_filter on lists (${dialect})`, () => {
    let t: TestApp;
    let editor: string;
    let user: string;
    let category: string;

    const list = async (url: string, auth = editor) => {
      const response = await t.request({ method: 'GET', url, auth });
      return { status: response.statusCode, document: response.json<ListDocument>() };
    };
    const titles = (document: ListDocument) => document.data.map((r) => String(r.attributes.title));
    const refused = async (filter: unknown, auth = editor) => {
      const { status, document } = await list(filterQuery(filter), auth);
      assert.equal(status, 400, JSON.stringify(document));
      const error = document.errors?.[0];
      assert.ok(error);
      assert.equal(error.source?.parameter, '_filter');
      return error;
    };

    before(async () => {
      t = await startTestApp(dialect);
      editor = await t.as('editor');
      user = await t.as('user', 'user-1');
      const created = await t.request({
        method: 'POST',
        url: '/v1/categories',
        auth: editor,
        payload: { name: 'news' },
      });
      category = created.json<{ data: { id: string } }>().data.id;
      for (const post of POSTS) {
        const response = await t.request({
          method: 'POST',
          url: '/v1/posts',
          auth: editor,
          payload: { ...post, category_id: post.status === 'draft' ? category : null },
        });
        assert.equal(response.statusCode, 201, response.body);
      }
      // The user's own drafts: readable to them through the row filter's `$userId` arm.
      for (const title of ['u-mine-draft', 'u-mine-other']) {
        const response = await t.request({
          method: 'POST',
          url: '/v1/posts',
          auth: user,
          payload: { title, status: 'draft' },
        });
        assert.equal(response.statusCode, 201, response.body);
      }
    });

    after(async () => {
      await t.close();
    });

    it('ORs, NOTs and nests, and ANDs the tree with field__op parameters', async () => {
      const or = await list(filterQuery({ _or: [{ status: { eq: 'published' } }, { views: { gte: 10 } }] }));
      assert.equal(or.status, 200, JSON.stringify(or.document));
      assert.deepEqual(titles(or.document), ['a-published-low', 'b-published-high', 'c-draft-high']);
      const anded = await list(
        filterQuery({ _or: [{ status: { eq: 'published' } }, { views: { gte: 10 } }] }, '&views__lt=45'),
      );
      assert.deepEqual(titles(anded.document), ['a-published-low', 'c-draft-high']);
      const not = await list(filterQuery({ _not: { status: { eq: 'draft' } } }));
      assert.deepEqual(titles(not.document), ['a-published-low', 'b-published-high']);
      const empty = await list(filterQuery({}, '&status=published'));
      assert.deepEqual(titles(empty.document), ['a-published-low', 'b-published-high']);
    });

    it('takes the operators list parameters leave to rules: contains and a linear regex', async () => {
      const contains = await list(filterQuery({ body: { contains: 'x' }, title: { regex: '^[ab]-' } }));
      assert.equal(contains.status, 200, JSON.stringify(contains.document));
      assert.deepEqual(titles(contains.document), []);
      const regex = await list(filterQuery({ title: { regex: '^[ab]-' } }));
      assert.deepEqual(titles(regex.document), ['a-published-low', 'b-published-high']);
    });

    it('resolves $userId and $role for the caller', async () => {
      const mine = await list(filterQuery({ author_id: { eq: '$userId' } }), user);
      assert.equal(mine.status, 200, JSON.stringify(mine.document));
      assert.deepEqual(titles(mine.document), ['u-mine-draft', 'u-mine-other']);
      const notMine = await list(filterQuery({ _not: { author_id: { eq: '$userId' } } }), user);
      assert.deepEqual(titles(notMine.document), ['a-published-low', 'b-published-high']);
      const role = await list(
        filterQuery({ _or: [{ title: { eq: '$role' } }, { title: { in: ['$role', 'u-mine-draft'] } }] }),
        user,
      );
      assert.deepEqual(titles(role.document), ['u-mine-draft']);
      // The admin token has no user: `$userId` holds for no row, never for every row.
      const admin = await list(filterQuery({ author_id: { eq: '$userId' } }), t.admin);
      assert.equal(admin.status, 200);
      assert.deepEqual(titles(admin.document), []);
      const adminNin = await list(filterQuery({ author_id: { nin: ['$userId'] } }), t.admin);
      assert.deepEqual(titles(adminNin.document), []);
    });

    it('keeps _filter in pagination links', async () => {
      const filter = { _or: [{ status: { eq: 'draft' } }, { views: { gt: 0 } }] };
      const first = await list(`${filterQuery(filter)}&_limit=2`);
      assert.equal(first.status, 200);
      const next = first.document.links?.next;
      assert.ok(next, JSON.stringify(first.document.links));
      const nextUrl = new URL(next, 'http://x');
      assert.deepEqual(JSON.parse(nextUrl.searchParams.get('_filter') ?? 'null'), filter);
      const second = await list(`${nextUrl.pathname}${nextUrl.search}`);
      assert.deepEqual(titles(second.document), ['c-draft-high', 'd-draft-low']);
    });

    it('filters related lists', async () => {
      const related = await list(
        `/v1/categories/${category}/posts?_sort=title&_filter=${encodeURIComponent(JSON.stringify({ views: { gte: 2 } }))}`,
      );
      assert.equal(related.status, 200, JSON.stringify(related.document));
      assert.deepEqual(titles(related.document), ['c-draft-high', 'd-draft-low']);
    });

    it('names the pointer of a bad value, operator or field inside the JSON', async () => {
      const value = await refused({
        _or: [{ status: { eq: 'draft' } }, { views: { lt: 1 } }, { views: { gt: 2 } }, { views: { gte: 'many' } }],
      });
      assert.equal(value.code, 'INVALID_QUERY_PARAMS');
      assert.equal(value.meta?.pointer, '/_or/3/views/gte');
      const enumValue = await refused({ status: { in: ['draft', 'gone'] } });
      assert.equal(enumValue.meta?.pointer, '/status/in/1');
      const operator = await refused({ views: { like: '1%' } });
      assert.equal(operator.meta?.pointer, '/views/like');
      const unknown = await refused({ _and: [{ nope: { eq: 1 } }] });
      assert.equal(unknown.meta?.pointer, '/_and/0/nope');
      const shape = await refused({ _or: { views: { eq: 1 } } });
      assert.equal(shape.meta?.pointer, '/_or');
      const notObject = await refused([1]);
      assert.equal(notObject.meta?.pointer, '');
      const json = await refused('{"views": ');
      assert.equal(json.meta?.pointer, '');
      assert.match(json.detail, /not valid JSON/);
      const twice = await list(`${filterQuery({})}&_filter=%7B%7D`);
      assert.equal(twice.status, 400);
      assert.equal(twice.document.errors?.[0]?.source?.parameter, '_filter');
      const escaped = await refused({ 'a/b~c': { eq: 1 } });
      assert.equal(escaped.meta?.pointer, '/a~1b~0c');
    });

    it('refuses fields the caller cannot read, as INVALID_FIELDS, wherever they hide', async () => {
      const hidden = await refused({ _or: [{ status: { eq: 'draft' } }, { _not: { rating: { gt: 3 } } }] }, user);
      assert.equal(hidden.code, 'INVALID_FIELDS');
      assert.equal(hidden.meta?.pointer, '/_or/1/_not/rating');
    });

    it('refuses prototype names as fields and operators', async () => {
      for (const text of [
        '{"__proto__": {"eq": 1}}',
        '{"constructor": {"eq": 1}}',
        '{"toString": {"eq": 1}}',
        '{"views": {"__proto__": 1}}',
        '{"views": {"constructor": 1}}',
        '{"_or": [{"hasOwnProperty": {"eq": 1}}]}',
      ]) {
        const error = await refused(text);
        assert.equal(error.code, 'INVALID_QUERY_PARAMS', text);
        assert.ok(error.meta?.pointer?.startsWith('/'), text);
      }
    });

    it('bounds depth, conditions and in values, naming where the bound was passed', async () => {
      let deep: unknown = { views: { gte: 0 } };
      for (let i = 0; i < 7; i++) deep = { _not: deep };
      const atBound = await list(filterQuery(deep));
      assert.equal(atBound.status, 200, JSON.stringify(atBound.document));
      const tooDeep = await refused({ _not: deep });
      assert.match(tooDeep.detail, /deeper than 8/);
      assert.equal(tooDeep.meta?.pointer, `/${'_not/'.repeat(8)}`.slice(0, -1));

      const hundred = { _or: Array.from({ length: 100 }, (_, i) => ({ views: { eq: i } })) };
      assert.equal((await list(filterQuery(hundred))).status, 200);
      const tooMany = await refused({ _or: [...hundred._or, { views: { eq: 100 } }] });
      assert.equal(tooMany.meta?.pointer, '/_or/100/views/eq');
      assert.match(tooMany.detail, /at most 100 conditions/);

      const values = Array.from({ length: 600 }, (_, i) => i);
      assert.equal(
        (await list(filterQuery({ views: { in: values }, rating: { nin: values.slice(0, 400) } }))).status,
        200,
      );
      const tooManyValues = await refused({ views: { in: values }, rating: { nin: values } });
      assert.equal(tooManyValues.meta?.pointer, '/rating/nin');
      assert.match(tooManyValues.detail, /at most 1000 in\/nin values/);
    });

    it('refuses deep or huge JSON before walking it', async () => {
      const brackets = `${'['.repeat(5000)}${']'.repeat(5000)}`;
      const deep = await refused(`{"views": {"in": ${brackets}}}`);
      assert.equal(deep.meta?.pointer, '');
      const objects = `${'{"_not":'.repeat(2000)}{}${'}'.repeat(2000)}`;
      assert.equal((await refused(objects)).meta?.pointer, '');
    });

    it('bounds regex, like and contains values', async () => {
      const long = await refused({ title: { regex: 'a'.repeat(101) } });
      assert.equal(long.meta?.pointer, '/title/regex');
      const backreference = await refused({ title: { regex: '(a)\\1' } });
      assert.match(backreference.detail, /RE2|regular expression/);
      const lookahead = await refused({ title: { regex: 'a(?=b)' } });
      assert.equal(lookahead.meta?.pointer, '/title/regex');
      const wildcards = await refused({ title: { like: '%a'.repeat(17) } });
      assert.match(wildcards.detail, /wildcards/);
      const needle = await refused({ body: { contains: 'n'.repeat(101) } });
      assert.equal(needle.meta?.pointer, '/body/contains');
      const notString = await refused({ title: { regex: 5 } });
      assert.equal(notString.meta?.pointer, '/title/regex');
      const nullTest = await refused({ title: { is_null: 'yes' } });
      assert.equal(nullTest.meta?.pointer, '/title/is_null');
    });

    it('gives the answers collected for the comparison across databases', async () => {
      const collected: string[][] = [];
      for (const filter of SHARED_FILTERS) {
        const { status, document } = await list(filterQuery(filter));
        assert.equal(status, 200, `${JSON.stringify(filter)}: ${JSON.stringify(document)}`);
        collected.push(titles(document));
      }
      answers.set(dialect, collected);
    });
  });
}

describe('_filter across databases', () => {
  it('answers alike on SQLite and PostgreSQL, nulls and unicode included', (context) => {
    if (answers.size < 2) {
      context.skip('one database configured');
      return;
    }
    const [sqlite, postgres] = [answers.get('sqlite'), answers.get('postgres')];
    SHARED_FILTERS.forEach((filter, i) => {
      assert.deepEqual(postgres?.[i], sqlite?.[i], JSON.stringify(filter));
    });
  });
});

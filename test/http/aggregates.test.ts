// Aggregates (docs/records.md, "Aggregates"): GET /v1/:resource/aggregate groups the rows the caller may
// read, with count, sum, avg, min and max, the list's filters, sorting and a limit; unreadable and
// non-numeric fields refused by parameter; the same answers on SQLite and PostgreSQL.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { testDialects } from '../helpers/test-databases.ts';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';

interface Group {
  type: string;
  id: string;
  attributes: Record<string, unknown> & {
    count?: number;
    sum?: Record<string, number | null>;
    avg?: Record<string, number | null>;
  };
}

const POSTS = [
  { title: 'Alpha', status: 'published', views: 10, rating: 4, author_id: 'ann' },
  { title: 'beta', status: 'published', views: 20, rating: 2, author_id: 'ann' },
  { title: 'Gamma', status: 'published', views: 5, author_id: 'bob' },
  { title: 'délta ünïcode', status: 'draft', views: 7, rating: 5, author_id: 'bob' },
  { title: 'Epsilon', status: 'draft', views: 1, author_id: 'reader-1' },
  { title: 'Zeta', status: 'published', views: 3 },
];

/** Answers per dialect, compared at the end. */
const answers = new Map<string, unknown[]>();

for (const dialect of testDialects()) {
  describe(`aggregates on ${dialect}`, () => {
    let t: TestApp;
    let editor: string;
    let user: string;
    before(async () => {
      t = await startTestApp(dialect);
      editor = await t.as('editor');
      user = await t.as('user', 'reader-1');
      for (const post of POSTS) {
        const created = await t.request({ method: 'POST', url: '/v1/posts', auth: editor, payload: post });
        assert.equal(created.statusCode, 201, created.body);
      }
    });
    after(() => t.close());

    const get = async (url: string, auth = editor) => {
      const response = await t.request({ method: 'GET', url, auth });
      return { status: response.statusCode, body: response.json() };
    };
    const groups = async (url: string, auth = editor): Promise<Group[]> => {
      const { status, body } = await get(url, auth);
      assert.equal(status, 200, JSON.stringify(body));
      (answers.get(dialect) ?? answers.set(dialect, []).get(dialect)!).push(body.data);
      return body.data as Group[];
    };

    it('groups with count, sum, avg, min and max as a JSON:API document', async () => {
      const data = await groups(
        '/v1/posts/aggregate?_group=status&_count&_sum=views&_avg=views,rating&_min=views,title&_max=views',
      );
      assert.deepEqual(
        data.map((group) => group.type),
        ['posts-aggregates', 'posts-aggregates'],
      );
      const byStatus = new Map(data.map((group) => [group.attributes.status, group.attributes]));
      assert.deepEqual(byStatus.get('published'), {
        status: 'published',
        count: 4,
        sum: { views: 38 },
        avg: { views: 9.5, rating: 3 },
        min: { views: 3, title: 'Alpha' },
        max: { views: 20 },
      });
      assert.deepEqual(byStatus.get('draft'), {
        status: 'draft',
        count: 2,
        sum: { views: 8 },
        avg: { views: 4, rating: 5 },
        min: { views: 1, title: 'Epsilon' },
        max: { views: 7 },
      });
      assert.equal(data[0]!.id, '["draft"]', 'groups come in the order of their values when no _sort is given');
    });

    it('counts by default, groups by several fields, a NULL group included, sorted and limited', async () => {
      const data = await groups('/v1/posts/aggregate?_group=author_id,status&_sort=-count,author_id');
      assert.deepEqual(
        data.map((group) => [group.attributes.author_id, group.attributes.status, group.attributes.count]),
        [
          ['ann', 'published', 2],
          ['bob', 'draft', 1],
          ['bob', 'published', 1],
          ['reader-1', 'draft', 1],
          [null, 'published', 1],
        ],
      );
      const top = await groups('/v1/posts/aggregate?_group=author_id&_sum=views&_sort=-sum.views&_limit=2');
      assert.deepEqual(
        top.map((group) => [group.attributes.author_id, group.attributes.sum?.views]),
        [
          ['ann', 30],
          ['bob', 12],
        ],
      );
    });

    it('applies the list filters, and aggregates the whole set without _group', async () => {
      // Not compared between the databases: the times differ.
      const all = (await get('/v1/posts/aggregate?views__gte=5&title__ilike=%25a%25&_count&_max=created_at')).body
        .data[0] as Group;
      assert.equal(all.attributes.count, 4);
      assert.match(String((all.attributes.max as Record<string, unknown>).created_at), /^\d{4}-\d\d-\d\dT/);
      const [none] = await groups('/v1/posts/aggregate?views__gt=1000&_count&_sum=views');
      assert.deepEqual(none!.attributes, { count: 0, sum: { views: null } });
    });

    it('takes _filter, with $userId, beside the other filters', async () => {
      const filter = encodeURIComponent(
        JSON.stringify({ _or: [{ author_id: { eq: '$userId' } }, { views: { gte: 10 } }] }),
      );
      const data = await groups(`/v1/posts/aggregate?_filter=${filter}&_group=status&_sort=status`, user);
      assert.deepEqual(
        data.map((group) => [group.attributes.status, group.attributes.count]),
        [
          ['draft', 1],
          ['published', 2],
        ],
      );
      const hidden = await get(`/v1/posts/aggregate?_filter=${encodeURIComponent('{"rating":{"gte":1}}')}`, user);
      assert.equal(hidden.status, 400);
      assert.equal(hidden.body.errors[0].source.parameter, '_filter');
    });

    it('counts only the rows the row filter lets the caller read', async () => {
      const data = await groups('/v1/posts/aggregate?_group=status&_sum=views&_count', user);
      assert.deepEqual(
        data.map((group) => group.attributes),
        [
          { status: 'draft', count: 1, sum: { views: 1 } },
          { status: 'published', count: 4, sum: { views: 38 } },
        ],
      );
    });

    it('refuses unreadable fields, by parameter, as INVALID_FIELDS', async () => {
      for (const parameter of ['_sum=rating', '_avg=rating', '_min=rating', '_group=rating', '_max=published_at']) {
        const { status, body } = await get(`/v1/posts/aggregate?${parameter}`, user);
        assert.equal(status, 400, parameter);
        assert.equal(body.errors[0].code, 'INVALID_FIELDS', parameter);
        assert.equal(body.errors[0].source.parameter, parameter.split('=')[0]);
      }
      const filtered = await get('/v1/posts/aggregate?rating__gte=1', user);
      assert.equal(filtered.body.errors[0].source.parameter, 'rating__gte');
    });

    it('refuses numeric aggregates on other fields, unknown fields and bad parameters, each by name', async () => {
      const cases: [string, string][] = [
        ['_sum=title', '_sum'],
        ['_avg=published_at', '_avg'],
        ['_sum=nope', '_sum'],
        ['_min=tags', '_min'],
        ['_group=tags', '_group'],
        ['_group=id', '_group'],
        ['_group=status,status', '_group'],
        ['_group=status&_sort=views', '_sort'],
        ['_sum=views&_sort=-sum.rating', '_sort'],
        ['_limit=0', '_limit'],
        ['_limit=1001', '_limit'],
        ['_count=yes', '_count'],
        ['_offset=2', '_offset'],
        ['sort=-count', 'sort'],
        ['fields=title', 'fields'],
        ['page[after]=', 'page[after]'],
        ['_bogus=1', '_bogus'],
        ['views__gte=x', 'views__gte'],
        ['_group=status&_group=views', '_group'],
      ];
      for (const [query, parameter] of cases) {
        const { status, body } = await get(`/v1/posts/aggregate?${query}`);
        assert.equal(status, 400, query);
        assert.equal(body.errors[0].code, 'INVALID_QUERY_PARAMS', `${query}: ${JSON.stringify(body)}`);
        assert.equal(body.errors[0].source.parameter, parameter, query);
      }
    });

    it('bounds the group list and the aggregates', async () => {
      const many = Array.from({ length: 5000 }, (_, i) => `f${i}`).join(',');
      const huge = await get(`/v1/posts/aggregate?_group=${many}`);
      assert.equal(huge.status, 400);
      assert.equal(huge.body.errors[0].source.parameter, '_group');
      assert.ok(huge.body.errors.length <= 10, 'one error per field up to the bound, not thousands');
      const fields = [
        'title',
        'body',
        'status',
        'views',
        'rating',
        'published',
        'published_at',
        'publish_on',
        'author_id',
      ];
      const wide = await get(`/v1/posts/aggregate?_group=${fields.join(',')}`);
      assert.equal(wide.body.errors[0].source.parameter, '_group');
      const aggregates = Array.from({ length: 40 }, () => 'views').join(',');
      const tooMany = await get(`/v1/posts/aggregate?_min=${aggregates}`);
      assert.equal(tooMany.status, 400);
      assert.equal(tooMany.body.errors[0].source.parameter, '_min');
    });

    it('is refused before anything is read to callers without read access, and to other methods', async () => {
      assert.equal((await get('/v1/posts/aggregate', '')).status, 401);
      assert.equal((await get('/v1/comments/aggregate', user)).status, 403);
      const post = await t.request({ method: 'POST', url: '/v1/posts/aggregate', auth: editor, payload: {} });
      assert.equal(post.statusCode, 405);
      assert.equal(post.headers.allow, 'GET');
    });

    it('is in the OpenAPI document', async () => {
      const openapi = (await t.request({ method: 'GET', url: '/openapi.json' })).json();
      const operation = openapi.paths['/v1/posts/aggregate']?.get;
      assert.ok(operation, 'the path is documented');
      const names = (operation.parameters as { name?: string }[]).map((parameter) => parameter.name);
      for (const name of [
        '_group',
        '_count',
        '_sum',
        '_avg',
        '_min',
        '_max',
        '_sort',
        '_limit',
        'status',
        'views__gte',
      ])
        assert.ok(names.includes(name), name);
    });
  });
}

if (testDialects().length > 1) {
  describe('aggregates agree between SQLite and PostgreSQL', () => {
    it('gives the same groups, values, NULLs and order on the same data', () => {
      assert.ok((answers.get('sqlite')?.length ?? 0) > 0);
      assert.deepEqual(answers.get('postgres'), answers.get('sqlite'));
    });
  });
}

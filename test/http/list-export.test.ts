// Exports (docs/records.md, "Export"): a list as CSV or NDJSON by `_format` or Accept, every matching
// row the caller may read and only its readable fields, RFC 4180 with formula-looking text escaped,
// page parameters refused, the rate limit counting one request, on every dialect.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { testDialects } from '../helpers/test-databases.ts';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';
import { parseRfc4180 } from '../helpers/rfc4180.ts';

const TRICKY = [
  '=HYPERLINK("http://evil")',
  '+1+2',
  '-3',
  '@SUM(A1)',
  '\tlead',
  '\rcr',
  'a,b',
  'say "hi"',
  'two\r\nlines',
  'ünïcødé ✓',
];

for (const dialect of testDialects()) {
  describe(`list export on ${dialect}`, () => {
    let t: TestApp;
    let editor: string;
    let user: string;
    before(async () => {
      t = await startTestApp(dialect);
      editor = await t.as('editor');
      user = await t.as('user', 'reader-1');
      for (const [i, title] of TRICKY.entries()) {
        const created = await t.request({
          method: 'POST',
          url: '/v1/posts',
          auth: editor,
          payload: {
            title,
            views: i,
            rating: i % 2 === 0 ? null : -i / 2,
            status: i < 6 ? 'published' : 'draft',
            tags: { i },
          },
        });
        assert.equal(created.statusCode, 201, created.body);
      }
      // A draft the user wrote: the row filter lets them read it, as it does not the other drafts.
      const own = await t.request({
        method: 'POST',
        url: '/v1/posts',
        auth: user,
        payload: { title: 'mine', status: 'draft' },
      });
      assert.equal(own.statusCode, 201, own.body);
    });
    after(() => t.close());

    const exportOf = (url: string, auth: string, accept?: string) =>
      t.request({ method: 'GET', url, auth, headers: accept ? { accept } : {} });

    it('exports every record as RFC 4180 CSV with a header row and formula-looking text escaped', async () => {
      const response = await exportOf('/v1/posts?_format=csv&_sort=views', editor);
      assert.equal(response.statusCode, 200, response.body);
      assert.match(String(response.headers['content-type']), /^text\/csv; charset=utf-8/);
      assert.match(String(response.headers['content-disposition']), /attachment; filename="posts.csv"/);
      const [header, ...rows] = parseRfc4180(response.body);
      assert.deepEqual(header!.slice(0, 3), ['id', 'title', 'body']);
      assert.deepEqual(header!.slice(-2), ['created_at', 'updated_at']);
      assert.equal(rows.length, TRICKY.length + 1);
      const title = header!.indexOf('title');
      const views = header!.indexOf('views');
      const rating = header!.indexOf('rating');
      const tags = header!.indexOf('tags');
      const byViews = rows.filter((row) => row[title] !== 'mine');
      assert.deepEqual(
        byViews.map((row) => row[title]),
        TRICKY.map((text) => (/^[=+\-@\t\r]/.test(text) ? `'${text}` : text)),
      );
      assert.deepEqual(
        byViews.map((row) => Number(row[views])),
        TRICKY.map((_, i) => i),
      );
      // Numbers stay numbers (a negative one is no formula); an empty value is an empty field; JSON is its text.
      assert.equal(byViews[1]![rating], '-0.5');
      assert.equal(byViews[0]![rating], '');
      assert.equal(byViews[3]![tags], '{"i":3}');
    });

    it('exports NDJSON, one JSON object a line, by Accept as by _format', async () => {
      for (const [url, accept] of [
        ['/v1/posts?status=published&_sort=-views', 'application/x-ndjson'],
        ['/v1/posts?status=published&_sort=-views&_format=ndjson', undefined],
        ['/v1/posts?status=published&_sort=-views', 'application/vnd.api+json;q=0.5, application/x-ndjson'],
      ] as const) {
        const response = await exportOf(url, editor, accept);
        assert.equal(response.statusCode, 200, response.body);
        assert.match(String(response.headers['content-type']), /^application\/x-ndjson/);
        assert.ok(response.body.endsWith('\n'));
        const lines = response.body
          .trimEnd()
          .split('\n')
          .map((line) => JSON.parse(line) as Record<string, unknown>);
        assert.deepEqual(
          lines.map((line) => line.title),
          TRICKY.slice(0, 6).reverse(),
          url,
        );
        assert.deepEqual(Object.keys(lines[0]!).slice(0, 2), ['id', 'title']);
        assert.deepEqual(lines.at(-1)!.tags, { i: 0 });
      }
    });

    it('answers the JSON:API list when Accept prefers it', async () => {
      const response = await exportOf('/v1/posts', editor, 'application/vnd.api+json, text/csv;q=0.9');
      assert.equal(response.statusCode, 200);
      assert.match(String(response.headers['content-type']), /^application\/vnd\.api\+json/);
    });

    it('exports only the rows the row filter lets the caller read, and only readable fields', async () => {
      const response = await exportOf('/v1/posts', user, 'text/csv');
      assert.equal(response.statusCode, 200, response.body);
      const [header, ...rows] = parseRfc4180(response.body);
      assert.deepEqual(header, [
        'id',
        'title',
        'body',
        'status',
        'views',
        'author_id',
        'category_id',
        'created_at',
        'updated_at',
      ]);
      const status = header!.indexOf('status');
      const titles = rows.map((row) => row[header!.indexOf('title')]);
      assert.equal(rows.length, 7, "six published and the user's own draft");
      assert.ok(titles.includes('mine'));
      assert.ok(rows.every((row, i) => row[status] === 'published' || titles[i] === 'mine'));
      // Hidden rows cannot be reached through filters either, nor hidden fields named.
      const drafts = await exportOf('/v1/posts?status=draft&_format=ndjson', user);
      assert.deepEqual(
        drafts.body
          .trimEnd()
          .split('\n')
          .map((line) => JSON.parse(line).title),
        ['mine'],
      );
      const hidden = await exportOf('/v1/posts?rating__gte=0&_format=csv', user);
      assert.equal(hidden.statusCode, 400);
      assert.equal(hidden.json().errors[0].source.parameter, 'rating__gte');
      const sparse = await exportOf('/v1/posts?fields=rating&_format=csv', user);
      assert.equal(sparse.statusCode, 400);
    });

    it('takes _filter, with $userId', async () => {
      const filter = encodeURIComponent(
        JSON.stringify({ _or: [{ author_id: { eq: '$userId' } }, { views: { lt: 2 } }] }),
      );
      const response = await exportOf(`/v1/posts?_filter=${filter}&_format=ndjson&_sort=views`, user);
      assert.equal(response.statusCode, 200, response.body);
      assert.deepEqual(
        response.body
          .trimEnd()
          .split('\n')
          .map((line) => JSON.parse(line).title)
          .sort(),
        ['+1+2', '=HYPERLINK("http://evil")', 'mine'],
      );
    });

    it('narrows the columns with fields=', async () => {
      const response = await exportOf('/v1/posts?fields=title,views&_format=csv&_sort=views', editor);
      const [header] = parseRfc4180(response.body);
      assert.deepEqual(header, ['id', 'title', 'views', 'created_at', 'updated_at']);
    });

    it('refuses a bad _format and page parameters, each by name', async () => {
      const bad = await exportOf('/v1/posts?_format=xlsx', editor);
      assert.equal(bad.statusCode, 400);
      assert.equal(bad.json().errors[0].code, 'INVALID_QUERY_PARAMS');
      assert.equal(bad.json().errors[0].source.parameter, '_format');
      const twice = await exportOf('/v1/posts?_format=csv&_format=ndjson', editor);
      assert.equal(twice.json().errors[0].source.parameter, '_format');
      const paged = await exportOf('/v1/posts?_format=csv&_limit=5&page[after]=&include=category', editor);
      assert.equal(paged.statusCode, 400);
      assert.deepEqual(
        paged
          .json()
          .errors.map((error: { source: { parameter: string } }) => error.source.parameter)
          .sort(),
        ['_limit', 'include', 'page[after]'],
      );
      const unknown = await exportOf('/v1/posts?_format=csv&_nope=1', editor);
      assert.equal(unknown.json().errors[0].source.parameter, '_nope');
    });

    it('is refused to a caller without read access before any row is read', async () => {
      const anonymous = await exportOf('/v1/posts?_format=csv', '');
      assert.equal(anonymous.statusCode, 401);
      const comments = await exportOf('/v1/comments?_format=csv', user);
      assert.equal(comments.statusCode, 403);
    });

    it('is in the OpenAPI document', async () => {
      const openapi = (await t.request({ method: 'GET', url: '/openapi.json' })).json();
      const parameters = openapi.paths['/v1/posts'].get.parameters as { name: string; schema?: { enum?: string[] } }[];
      assert.deepEqual(parameters.find((parameter) => parameter.name === '_format')?.schema?.enum, ['csv', 'ndjson']);
    });

    it('counts as one request against the rate limit', async () => {
      const before = await exportOf('/v1/posts?_limit=1', editor);
      const remaining = Number(before.headers['ratelimit-remaining']);
      assert.ok(Number.isFinite(remaining), JSON.stringify(before.headers));
      const exported = await exportOf('/v1/posts?_format=ndjson', editor);
      assert.equal(Number(exported.headers['ratelimit-remaining']), remaining - 1);
    });
  });
}

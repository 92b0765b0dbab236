// List queries of spec 4.1 and docs/records.md: 12 operators, sort, paging, fields, links, and their errors.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { testDialects } from '../helpers/test-databases.ts';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';

interface Seed {
  title: string;
  views: number;
  rating: number | null;
  published: boolean;
  published_at: string | null;
  publish_on: string | null;
  status: 'draft' | 'published';
  body: string | null;
}

const SEEDS: Seed[] = [
  {
    title: 'Alpha',
    views: 10,
    rating: 1.5,
    published: true,
    published_at: '2026-01-01T00:00:00.000Z',
    publish_on: '2026-01-01',
    status: 'published',
    body: 'apple pie',
  },
  {
    title: 'alpha',
    views: 20,
    rating: null,
    published: false,
    published_at: null,
    publish_on: null,
    status: 'draft',
    body: 'Apple tart',
  },
  {
    title: 'Beta',
    views: 30,
    rating: 3,
    published: true,
    published_at: '2026-02-01T12:00:00.000Z',
    publish_on: '2026-02-01',
    status: 'published',
    body: null,
  },
  {
    title: 'Gamma_1',
    views: 40,
    rating: 4.25,
    published: false,
    published_at: '2026-03-01T00:00:00.000Z',
    publish_on: '2026-03-01',
    status: 'draft',
    body: '100% real',
  },
  {
    title: 'Delta',
    views: 50,
    rating: 5,
    published: true,
    published_at: null,
    publish_on: '2026-04-01',
    status: 'published',
    body: 'banana',
  },
];

for (const dialect of testDialects()) {
  describe(`list queries on ${dialect}`, () => {
    let t: TestApp;
    let editor: string;
    before(async () => {
      t = await startTestApp(dialect);
      editor = await t.as('editor');
      for (const seed of SEEDS) {
        const response = await t.request({ method: 'POST', url: '/v1/posts', auth: editor, payload: seed });
        assert.equal(response.statusCode, 201, response.body);
      }
    });
    after(() => t.close());

    const titles = async (query: string): Promise<string[]> => {
      const response = await t.request({ method: 'GET', url: `/v1/posts?${query}`, auth: editor });
      assert.equal(response.statusCode, 200, `${query}: ${response.body}`);
      return response.json().data.map((d: { attributes: { title: string } }) => d.attributes.title);
    };

    const filterCases: [string, string[]][] = [
      ['views=30', ['Beta']],
      ['views__eq=30', ['Beta']],
      ['views__neq=30', ['Alpha', 'alpha', 'Gamma_1', 'Delta']],
      ['views__gt=30', ['Gamma_1', 'Delta']],
      ['views__gte=30', ['Beta', 'Gamma_1', 'Delta']],
      ['views__lt=30', ['Alpha', 'alpha']],
      ['views__lte=30', ['Alpha', 'alpha', 'Beta']],
      ['views__in=10,50', ['Alpha', 'Delta']],
      ['views__nin=10,50', ['alpha', 'Beta', 'Gamma_1']],
      ['rating__is_null', ['alpha']],
      ['rating__is_null=whatever', ['alpha']],
      ['rating__is_not_null=', ['Alpha', 'Beta', 'Gamma_1', 'Delta']],
      ['title__like=Al%', ['Alpha']],
      ['title__like=%a', ['Alpha', 'alpha', 'Beta', 'Delta']],
      ['title__like=A%', ['Alpha']],
      ['title__ilike=al%', ['Alpha', 'alpha']],
      ['title__like=Gamma\\_%', ['Gamma_1']],
      ['title__like=_eta', ['Beta']],
      ['body__ilike=%APPLE%', ['Alpha', 'alpha']],
      ['body__like=%100\\%%', ['Gamma_1']],
      ['rating__gt=2.5', ['Beta', 'Gamma_1', 'Delta']],
      ['published=true', ['Alpha', 'Beta', 'Delta']],
      ['published__eq=false', ['alpha', 'Gamma_1']],
      ['published_at__gte=2026-02-01T12:00:00Z', ['Beta', 'Gamma_1']],
      ['published_at__lt=2026-02-01T13:00:00%2B01:00', ['Alpha']],
      ['publish_on__lte=2026-02-01', ['Alpha', 'Beta']],
      ['status=published&views__gt=10', ['Beta', 'Delta']],
      ['status__in=draft', ['alpha', 'Gamma_1']],
    ];
    for (const [query, expected] of filterCases) {
      it(`filters ${query}`, async () => {
        assert.deepEqual((await titles(query)).sort(), [...expected].sort());
      });
    }

    it('sorts ascending, descending and by several keys, with id as the tie-breaker', async () => {
      assert.deepEqual(await titles('_sort=views'), ['Alpha', 'alpha', 'Beta', 'Gamma_1', 'Delta']);
      assert.deepEqual(await titles('_sort=-views'), ['Delta', 'Gamma_1', 'Beta', 'alpha', 'Alpha']);
      assert.deepEqual(await titles('_sort=-published,views'), ['Alpha', 'Beta', 'Delta', 'alpha', 'Gamma_1']);
      assert.deepEqual(
        await titles('_sort=created_at'),
        SEEDS.map((s) => s.title),
      );
      assert.deepEqual(await titles('_sort=-id'), SEEDS.map((s) => s.title).reverse());
    });

    it('pages with _limit/_offset and page[limit]/page[offset], counting every match in meta.total', async () => {
      const response = await t.request({
        method: 'GET',
        url: '/v1/posts?_sort=views&_limit=2&_offset=2',
        auth: editor,
      });
      const body = response.json();
      assert.deepEqual(
        body.data.map((d: { attributes: { title: string } }) => d.attributes.title),
        ['Beta', 'Gamma_1'],
      );
      assert.equal(body.meta.total, 5);
      assert.deepEqual(await titles('_sort=views&page[limit]=1&page[offset]=4'), ['Delta']);
      assert.deepEqual(await titles('_sort=views&page%5Blimit%5D=1&page%5Boffset%5D=3'), ['Gamma_1']);
    });

    it('defaults to 50 records per page', async () => {
      const response = await t.request({ method: 'GET', url: '/v1/posts', auth: editor });
      assert.equal(response.json().data.length, 5);
      assert.match(response.json().links.self, /page\[limit\]=50/);
    });

    it('builds links that keep filters, sort and fields', async () => {
      const response = await t.request({
        method: 'GET',
        url: '/v1/posts?views__gte=10&_sort=-views&fields=title&_limit=2&_offset=2',
        auth: editor,
      });
      const { links, meta } = response.json();
      assert.equal(meta.total, 5);
      const q = 'views__gte=10&_sort=-views&fields=title';
      assert.equal(links.self, `/v1/posts?${q}&page[offset]=2&page[limit]=2`);
      assert.equal(links.first, `/v1/posts?${q}&page[offset]=0&page[limit]=2`);
      assert.equal(links.prev, `/v1/posts?${q}&page[offset]=0&page[limit]=2`);
      assert.equal(links.next, `/v1/posts?${q}&page[offset]=4&page[limit]=2`);
      assert.equal(links.last, `/v1/posts?${q}&page[offset]=4&page[limit]=2`);
      const next = await t.request({ method: 'GET', url: links.next, auth: editor });
      assert.deepEqual(
        next.json().data.map((d: { attributes: { title: string } }) => d.attributes.title),
        ['Alpha'],
      );
      assert.equal(next.json().links.next, undefined, 'no next on the last page');
      const empty = await t.request({ method: 'GET', url: '/v1/posts?views=999', auth: editor });
      assert.deepEqual(Object.keys(empty.json().links).sort(), ['first', 'self']);
    });

    it('returns only the requested fields plus system fields', async () => {
      const response = await t.request({ method: 'GET', url: '/v1/posts?fields=title,views&_limit=1', auth: editor });
      assert.deepEqual(Object.keys(response.json().data[0].attributes).sort(), [
        'created_at',
        'title',
        'updated_at',
        'views',
      ]);
    });

    const badCases: [string, string, string][] = [
      ['_limit=0', '_limit', 'INVALID_QUERY_PARAMS'],
      ['_limit=1001', '_limit', 'INVALID_QUERY_PARAMS'],
      ['_limit=abc', '_limit', 'INVALID_QUERY_PARAMS'],
      ['_offset=-1', '_offset', 'INVALID_QUERY_PARAMS'],
      ['_offset=1.5', '_offset', 'INVALID_QUERY_PARAMS'],
      ['page[limit]=5000', 'page[limit]', 'INVALID_QUERY_PARAMS'],
      ['_sort=body', '_sort', 'INVALID_QUERY_PARAMS'],
      ['_sort=nope', '_sort', 'INVALID_QUERY_PARAMS'],
      ['views__between=1', 'views__between', 'INVALID_QUERY_PARAMS'],
      ['nope=1', 'nope', 'INVALID_QUERY_PARAMS'],
      ['views=ten', 'views', 'INVALID_QUERY_PARAMS'],
      ['published=maybe', 'published', 'INVALID_QUERY_PARAMS'],
      ['published_at__gt=yesterday', 'published_at__gt', 'INVALID_QUERY_PARAMS'],
      ['views__like=1%', 'views__like', 'INVALID_QUERY_PARAMS'],
      ['id=not-a-uuid', 'id', 'INVALID_QUERY_PARAMS'],
      ['fields=title,nope', 'fields', 'INVALID_QUERY_PARAMS'],
      ['views=1&views=2', 'views', 'INVALID_QUERY_PARAMS'],
      ['_bogus=1', '_bogus', 'INVALID_QUERY_PARAMS'],
      ['status=archived', 'status', 'INVALID_QUERY_PARAMS'],
    ];
    for (const [query, parameter, code] of badCases) {
      it(`answers 400 ${code} naming '${parameter}' for ${query}`, async () => {
        const response = await t.request({ method: 'GET', url: `/v1/posts?${query}`, auth: editor });
        assert.equal(response.statusCode, 400, response.body);
        const error = response.json().errors[0];
        assert.equal(error.code, code);
        assert.equal(error.source.parameter, parameter);
        assert.ok(error.detail.length > 0);
      });
    }

    it('reports every malformed parameter, not only the first', async () => {
      const response = await t.request({ method: 'GET', url: '/v1/posts?_limit=0&views=x&nope=1', auth: editor });
      assert.equal(response.statusCode, 400);
      assert.deepEqual(
        response
          .json()
          .errors.map((e: { source: { parameter: string } }) => e.source.parameter)
          .sort(),
        ['_limit', 'nope', 'views'],
      );
    });
  });
}

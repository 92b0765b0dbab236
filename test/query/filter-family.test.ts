// `filter[field]=value` and `filter[field][op]=value`, JSON:API's filter family as JSON:API clients send
// it, as aliases of `field=value` and `field__op=value` (docs/records.md), on every dialect.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { testDialects } from '../helpers/test-databases.ts';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';

const SEEDS = [
  { title: 'Alpha', views: 10, status: 'published' },
  { title: 'Beta', views: 20, status: 'draft' },
  { title: 'Gamma', views: 30, status: 'published' },
];

for (const dialect of testDialects()) {
  describe(`filter[field] parameters on ${dialect}`, () => {
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

    const list = (query: string) => t.request({ method: 'GET', url: `/v1/posts?${query}&_sort=title`, auth: editor });
    const titles = async (query: string): Promise<string[]> => {
      const response = await list(query);
      assert.equal(response.statusCode, 200, `${query}: ${response.body}`);
      return response.json().data.map((d: { attributes: { title: string } }) => d.attributes.title);
    };

    it('reads filter[field] as field= and filter[field][op] as field__op=, brackets encoded or not', async () => {
      const pairs: [string, string][] = [
        ['filter[title]=Beta', 'title=Beta'],
        ['filter%5Bstatus%5D=published', 'status=published'],
        ['filter[views][gte]=20', 'views__gte=20'],
        ['filter%5Bviews%5D%5Blt%5D=30&filter[status]=published', 'views__lt=30&status=published'],
        ['filter[title][in]=Alpha,Gamma', 'title__in=Alpha,Gamma'],
        ['filter[title__like]=%25mm%25', 'title__like=%25mm%25'],
      ];
      for (const [alias, spec] of pairs) {
        const expected = await titles(spec);
        assert.ok(expected.length > 0 && expected.length < SEEDS.length, `${spec} selects some records`);
        assert.deepEqual(await titles(alias), expected, alias);
      }
    });

    it('keeps the name the caller gave in links, which lead to the same records', async () => {
      const response = await t.request({
        method: 'GET',
        url: '/v1/posts?filter[views][gte]=10&_sort=views&_limit=1',
        auth: editor,
      });
      assert.equal(response.statusCode, 200, response.body);
      const { links, meta } = response.json();
      assert.equal(meta.total, 3);
      assert.match(decodeURIComponent(links.next), /filter\[views\]\[gte\]=10/);
      const next = await t.request({ method: 'GET', url: links.next, auth: editor });
      assert.deepEqual(
        next.json().data.map((d: { attributes: { title: string } }) => d.attributes.title),
        ['Beta'],
      );
    });

    it('answers 400 INVALID_QUERY_PARAMS naming the parameter as given', async () => {
      const cases: [string, RegExp][] = [
        ['filter[nope]=1', /Unknown filter field 'nope'/],
        ['filter[views][near]=1', /Unknown operator 'near'/],
        ['filter[views]=many', /Invalid value for 'filter\[views\]'/],
        ['filter[]=1', /must be filter\[field\]/],
        ['filter[views][gte][x]=1', /must be filter\[field\]/],
      ];
      for (const [query, detail] of cases) {
        const response = await list(query);
        assert.equal(response.statusCode, 400, `${query}: ${response.body}`);
        const [error] = response.json().errors;
        assert.equal(error.code, 'INVALID_QUERY_PARAMS', query);
        assert.equal(error.source.parameter, decodeURIComponent(query.slice(0, query.lastIndexOf('='))), query);
        assert.match(error.detail, detail, query);
      }
    });
  });
}

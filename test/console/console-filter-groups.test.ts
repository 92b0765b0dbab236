// The console filter builder's AND/OR groups (console/src/lib/filter-tree.ts): a tree becomes the console
// URL (`field__op=` while everything is ANDed at the top, `_filter` otherwise), the URL becomes the same
// tree again, and the API answers each written URL with exactly the records the tree describes.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { apiQuery, filterOperatorsOf, type FilterOperators } from '../../console/src/lib/filters.ts';
import {
  filterTreeOf,
  treeOfJson,
  withFilterTree,
  type Condition,
  type Group,
} from '../../console/src/lib/filter-tree.ts';
import { testDialects } from '../helpers/test-databases.ts';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';

const when = (field: string, op: string, value = ''): Condition => ({ kind: 'condition', field, op, value });
const group = (match: 'and' | 'or', ...items: (Condition | Group)[]): Group => ({ kind: 'group', match, items });

for (const dialect of testDialects()) {
  describe(`console filter groups (${dialect})`, () => {
    let t: TestApp;
    let operators: FilterOperators;
    let editor: string;

    /** Titles of the posts the API lists for the console URL `params`, sorted. */
    const titles = async (params: URLSearchParams): Promise<string[]> => {
      const response = await t.request({ method: 'GET', url: `/v1/posts?${apiQuery(params)}`, auth: editor });
      assert.equal(response.statusCode, 200, response.body);
      return (response.json() as { data: { attributes: { title: string } }[] }).data
        .map((row) => row.attributes.title)
        .sort();
    };

    before(async () => {
      t = await startTestApp(dialect);
      const openApi = (await t.request({ method: 'GET', url: '/openapi.json' })).json();
      operators = filterOperatorsOf(openApi.paths['/v1/posts'].get.parameters);
      editor = await t.as('editor');
      const posts = [
        { title: 'alpha', status: 'published', views: 50, published: true },
        { title: 'beta', status: 'draft', views: 5 },
        { title: 'gamma', status: 'draft', views: 500 },
        { title: 'delta', status: 'published', views: 1, rating: 4.5 },
        { title: 'epsilon', status: 'draft', views: 0 },
      ];
      for (const payload of posts) {
        const created = await t.request({ method: 'POST', url: '/v1/posts', auth: editor, payload });
        assert.equal(created.statusCode, 201, created.body);
      }
    });
    after(() => t.close());

    it('writes conditions all ANDed at the top as field__op parameters, as before groups', async () => {
      const tree = group('and', when('status', 'eq', 'draft'), when('views', 'gte', '5'));
      const params = withFilterTree(new URLSearchParams('_sort=title&page[offset]=25&record=x'), tree, operators);
      assert.equal(params.toString(), '_sort=title&status__eq=draft&views__gte=5');
      assert.deepEqual(await titles(params), ['beta', 'gamma']);
      assert.deepEqual(filterTreeOf(params, operators), tree);
    });

    it('writes an OR, and groups inside groups, as one _filter the API answers as the tree says', async () => {
      // published OR (draft AND views >= 100) OR (views in 0,50 AND not rated): all but beta
      const tree = group(
        'or',
        when('status', 'eq', 'published'),
        group('and', when('status', 'eq', 'draft'), when('views', 'gte', '100')),
        group('and', when('views', 'in', '0, 50'), when('rating', 'is_null')),
      );
      const params = withFilterTree(new URLSearchParams('_sort=title'), tree, operators);
      assert.equal(params.get('_sort'), 'title');
      assert.deepEqual(JSON.parse(params.get('_filter')!), {
        _or: [
          { status: { eq: 'published' } },
          { _and: [{ status: { eq: 'draft' } }, { views: { gte: '100' } }] },
          { _and: [{ views: { in: ['0', '50'] } }, { rating: { is_null: true } }] },
        ],
      });
      assert.deepEqual(await titles(params), ['alpha', 'delta', 'epsilon', 'gamma']);
      const narrower = group(
        'or',
        when('title', 'like', 'g%'),
        group('and', when('views', 'lt', '5'), when('rating', 'is_not_null')),
      );
      assert.deepEqual(await titles(withFilterTree(new URLSearchParams(), narrower, operators)), ['delta', 'gamma']);
      // Read back from the URL, the tree is the one written (an `in` list as typed, without spaces).
      const back = filterTreeOf(params, operators)!;
      assert.equal(back.match, 'or');
      assert.deepEqual((back.items[2] as Group).items[0], when('views', 'in', '0,50'));
      assert.deepEqual(back.items[1], tree.items[1]);
    });

    it('ANDs field__op parameters from an older link with the _filter, as the API does', async () => {
      const params = new URLSearchParams(
        `views__gte=5&_filter=${encodeURIComponent(JSON.stringify({ _or: [{ status: { eq: 'published' } }, { title: { eq: 'gamma' } }] }))}`,
      );
      const tree = filterTreeOf(params, operators)!;
      assert.deepEqual(
        tree,
        group(
          'and',
          when('views', 'gte', '5'),
          group('or', when('status', 'eq', 'published'), when('title', 'eq', 'gamma')),
        ),
      );
      assert.deepEqual(await titles(params), ['alpha', 'gamma']);
      assert.deepEqual(await titles(withFilterTree(params, tree, operators)), ['alpha', 'gamma']);
    });

    it('drops empty groups and conditions without a field, and clears to no filter at all', () => {
      const tree = group('or', group('and'), when('', 'eq', 'x'), group('and', when('title', 'eq', 'alpha')));
      assert.equal(withFilterTree(new URLSearchParams(), tree, operators).toString(), 'title__eq=alpha');
      const cleared = withFilterTree(
        new URLSearchParams('_filter=%7B%7D&views__gt=1&fields=title'),
        group('and'),
        operators,
      );
      assert.equal(cleared.toString(), 'fields=title');
    });
  });
}

describe('console filter groups, offline', () => {
  it('refuses to show a _filter the builder cannot edit, rather than showing something else', () => {
    assert.equal(treeOfJson('{"_not":{"title":{"eq":"a"}}}'), null);
    assert.equal(treeOfJson('not json'), null);
    assert.equal(treeOfJson('[1]'), null);
    assert.equal(treeOfJson('{"title":{"eq":{"nested":1}}}'), null);
    assert.deepEqual(
      treeOfJson('{"title":{"eq":"a","neq":"b"}}'),
      group('and', when('title', 'eq', 'a'), when('title', 'neq', 'b')),
    );
  });
});

// JSON:API's own list parameters and relation shapes beside svc's: `sort` with `_sort`, `page[size]` and
// `page[number]` with the limit and offset, a relation id as an attribute or a relationship, and a field
// named `sort`, which is then filtered only by its bracketed or operator spelling. Over HTTP, on each database.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { testDialects } from '../helpers/test-databases.ts';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';
import { BLOG_RESOURCES } from '../helpers/test-config.ts';
import { checkConfigFile } from '../../src/cli/check-config.ts';
import type { ResourceDefinition } from '../../src/config/config-types.ts';

const JSON_API = 'application/vnd.api+json';

interface ErrorBody {
  errors: { code: string; source?: { parameter?: string; pointer?: string } }[];
}

const RESOURCES: Record<string, ResourceDefinition> = {
  ...BLOG_RESOURCES,
  // A field named `sort`: `?sort=` sorts, so this field is filtered as filter[sort] or sort__eq.
  slots: {
    fields: { sort: { type: 'integer', sortable: true }, label: { type: 'string', sortable: true } },
    permissions: { editor: { read: true, create: true, update: true, delete: true } },
  },
};

for (const dialect of testDialects()) {
  describe(`JSON:API list parameters and relation shapes on ${dialect}`, () => {
    let t: TestApp;
    let editor: string;
    let news: string;
    let other: string;

    before(async () => {
      t = await startTestApp(dialect, { resources: RESOURCES });
      editor = await t.as('editor');
      const category = async (name: string) =>
        (await t.request({ method: 'POST', url: '/v1/categories', auth: editor, payload: { name } })).json<{
          data: { id: string };
        }>().data.id;
      news = await category('News');
      other = await category('Other');
      for (const [title, views] of [
        ['A', 1],
        ['B', 2],
        ['C', 3],
        ['D', 4],
        ['E', 5],
      ] as const) {
        const created = await t.request({ method: 'POST', url: '/v1/posts', auth: editor, payload: { title, views } });
        assert.equal(created.statusCode, 201, created.body);
      }
      for (const [sort, label] of [
        [2, 'two'],
        [1, 'one'],
        [3, 'three'],
      ] as const) {
        assert.equal(
          (await t.request({ method: 'POST', url: '/v1/slots', auth: editor, payload: { sort, label } })).statusCode,
          201,
        );
      }
    });
    after(() => t.close());

    const titles = (body: string) =>
      (JSON.parse(body) as { data: { attributes: { title: string } }[] }).data.map((r) => r.attributes.title);

    it('sorts by sort= as by _sort, and keeps the name in links', async () => {
      const bySort = await t.request({ method: 'GET', url: '/v1/posts?sort=-views&page[limit]=2', auth: editor });
      assert.equal(bySort.statusCode, 200, bySort.body);
      assert.deepEqual(titles(bySort.body), ['E', 'D']);
      const links = bySort.json<{ links: Record<string, string> }>().links;
      assert.equal(links.next, '/v1/posts?sort=-views&page[offset]=2&page[limit]=2');
      const byUnderscore = await t.request({
        method: 'GET',
        url: '/v1/posts?_sort=-views&page[limit]=2',
        auth: editor,
      });
      assert.deepEqual(titles(byUnderscore.body), ['E', 'D']);
    });

    it('refuses sort and _sort together, and a bad sort key, naming the parameter', async () => {
      const both = await t.request({ method: 'GET', url: '/v1/posts?sort=views&_sort=title', auth: editor });
      assert.equal(both.statusCode, 400);
      assert.equal(both.json<ErrorBody>().errors[0]!.code, 'INVALID_QUERY_PARAMS');
      assert.equal(both.json<ErrorBody>().errors[0]!.source?.parameter, 'sort');
      const unknown = await t.request({ method: 'GET', url: '/v1/posts?sort=nope', auth: editor });
      assert.equal(unknown.statusCode, 400);
      assert.equal(unknown.json<ErrorBody>().errors[0]!.source?.parameter, 'sort');
      const twice = await t.request({ method: 'GET', url: '/v1/posts?sort=views&sort=title', auth: editor });
      assert.equal(twice.statusCode, 400);
      assert.equal(twice.json<ErrorBody>().errors[0]!.source?.parameter, 'sort');
    });

    it('pages by page[size] and page[number], with links in the same spelling', async () => {
      const second = await t.request({
        method: 'GET',
        url: '/v1/posts?sort=views&page[size]=2&page[number]=2',
        auth: editor,
      });
      assert.equal(second.statusCode, 200, second.body);
      assert.deepEqual(titles(second.body), ['C', 'D']);
      const { links, meta } = second.json<{ links: Record<string, string>; meta: { total: number } }>();
      assert.equal(meta.total, 5);
      assert.deepEqual(links, {
        self: '/v1/posts?sort=views&page[number]=2&page[size]=2',
        first: '/v1/posts?sort=views&page[number]=1&page[size]=2',
        prev: '/v1/posts?sort=views&page[number]=1&page[size]=2',
        next: '/v1/posts?sort=views&page[number]=3&page[size]=2',
        last: '/v1/posts?sort=views&page[number]=3&page[size]=2',
      });
      const last = await t.request({ method: 'GET', url: links.last!, auth: editor });
      assert.deepEqual(titles(last.body), ['E']);
      // page[number] alone pages by the default size.
      const first = await t.request({ method: 'GET', url: '/v1/posts?page[number]=1', auth: editor });
      assert.equal(first.json<{ data: unknown[] }>().data.length, 5);
    });

    it('refuses a page number of 0, one with an offset, and two sizes, naming the parameter', async () => {
      for (const [query, parameter] of [
        ['page[number]=0', 'page[number]'],
        ['page[number]=-1', 'page[number]'],
        ['page[number]=x', 'page[number]'],
        ['page[number]=2&page[offset]=4', 'page[offset]'],
        ['page[number]=2&_offset=4', '_offset'],
        ['page[size]=2&page[limit]=2', 'page[size]'],
        ['page[size]=1001', 'page[size]'],
        ['page[number]=1&page[after]=', 'page[after]'],
      ] as const) {
        const answer = await t.request({ method: 'GET', url: `/v1/posts?${query}`, auth: editor });
        assert.equal(answer.statusCode, 400, `${query}: ${answer.body}`);
        const error = answer.json<ErrorBody>().errors[0]!;
        assert.equal(error.code, 'INVALID_QUERY_PARAMS', query);
        assert.equal(error.source?.parameter, parameter, query);
      }
    });

    it('filters a field named sort by filter[sort] and sort__eq, while sort= sorts', async () => {
      const labels = (body: string) =>
        (JSON.parse(body) as { data: { attributes: { label: string } }[] }).data.map((r) => r.attributes.label);
      assert.deepEqual(
        labels((await t.request({ method: 'GET', url: '/v1/slots?filter[sort]=2', auth: editor })).body),
        ['two'],
      );
      assert.deepEqual(labels((await t.request({ method: 'GET', url: '/v1/slots?sort__eq=3', auth: editor })).body), [
        'three',
      ]);
      assert.deepEqual(labels((await t.request({ method: 'GET', url: '/v1/slots?sort=-sort', auth: editor })).body), [
        'three',
        'two',
        'one',
      ]);
      const openapi = await t.request({ method: 'GET', url: '/openapi.json' });
      const parameters = openapi
        .json<{ paths: Record<string, { get: { parameters: { name?: string; $ref?: string }[] } }> }>()
        .paths['/v1/slots']!.get.parameters.map((p) => p.name ?? p.$ref);
      assert.equal(
        parameters.filter((name) => name === 'sort').length,
        1,
        'sort is listed once, as the sort parameter',
      );
      assert.ok(parameters.includes('sort__eq'));
    });

    it('takes a relation id as the attribute reads return, or as a relationship, or both when they agree', async () => {
      const document = (attributes: Record<string, unknown>, relationships?: Record<string, unknown>) => ({
        data: { type: 'posts', attributes, ...(relationships ? { relationships } : {}) },
      });
      const asAttribute = await t.request({
        method: 'POST',
        url: '/v1/posts',
        auth: editor,
        headers: { 'content-type': JSON_API },
        payload: document({ title: 'attr', category_id: news }),
      });
      assert.equal(asAttribute.statusCode, 201, asAttribute.body);
      const created = asAttribute.json<{ data: { id: string; attributes: { category_id: string } } }>().data;
      assert.equal(created.attributes.category_id, news);

      const agreeing = await t.request({
        method: 'POST',
        url: '/v1/posts',
        auth: editor,
        headers: { 'content-type': JSON_API },
        payload: document(
          { title: 'both', category_id: news },
          { category: { data: { type: 'categories', id: news } } },
        ),
      });
      assert.equal(agreeing.statusCode, 201, agreeing.body);

      // A read record sent back as it was read (attributes with category_id) moves it with PATCH too.
      const patched = await t.request({
        method: 'PATCH',
        url: `/v1/posts/${created.id}`,
        auth: editor,
        headers: { 'content-type': JSON_API },
        payload: { data: { type: 'posts', id: created.id, attributes: { category_id: other } } },
      });
      assert.equal(patched.statusCode, 200, patched.body);
      assert.equal(
        patched.json<{ data: { attributes: { category_id: string } } }>().data.attributes.category_id,
        other,
      );
    });

    it('refuses an attribute and a relationship that name different records, pointing at the relationship', async () => {
      const count = async () =>
        (await t.request({ method: 'GET', url: '/v1/posts?title=disagree', auth: editor })).json<{
          meta: { total: number };
        }>().meta.total;
      for (const name of ['category', 'category_id']) {
        const answer = await t.request({
          method: 'POST',
          url: '/v1/posts',
          auth: editor,
          headers: { 'content-type': JSON_API },
          payload: {
            data: {
              type: 'posts',
              attributes: { title: 'disagree', category_id: news },
              relationships: { [name]: { data: { type: 'categories', id: other } } },
            },
          },
        });
        assert.equal(answer.statusCode, 400, answer.body);
        const error = answer.json<ErrorBody>().errors[0]!;
        assert.equal(error.code, 'INVALID_RESOURCE_DATA');
        assert.equal(error.source?.pointer, `/data/relationships/${name}/data`);
      }
      assert.equal(await count(), 0, 'nothing was written');
    });

    it('points an error about a relation sent as an attribute at that attribute', async () => {
      const missing = '01900000-0000-7000-8000-000000000000';
      const answer = await t.request({
        method: 'POST',
        url: '/v1/comments',
        auth: editor,
        headers: { 'content-type': JSON_API },
        payload: { data: { type: 'comments', attributes: { body: 'x', post_id: missing } } },
      });
      assert.equal(answer.statusCode >= 400 && answer.statusCode < 500, true, answer.body);
      assert.equal(answer.json<ErrorBody>().errors[0]!.source?.pointer, '/data/attributes/post_id');
      const absent = await t.request({
        method: 'POST',
        url: '/v1/comments',
        auth: editor,
        headers: { 'content-type': JSON_API },
        payload: { data: { type: 'comments', attributes: { body: 'x' } } },
      });
      assert.equal(absent.statusCode, 400);
      assert.equal(absent.json<ErrorBody>().errors[0]!.source?.pointer, '/data/relationships/post');
    });
  });
}

describe('svc check and a field named sort', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-sort-field-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('warns that sort= sorts and names the spellings that filter it, and still passes', async () => {
    const file = join(dir, 'svc.config.yaml');
    writeFileSync(file, 'resources:\n  slots:\n    fields:\n      sort: { type: integer }\n');
    const result = await checkConfigFile(file, {}, dir);
    assert.equal(result.ok, true, result.lines.join('\n'));
    assert.match(result.lines[0]!, /1 warning/);
    assert.match(result.lines[1]!, /^warning: resources\.slots\.fields\.sort: .*filter\[sort\]=.*sort__eq=/);
  });
});

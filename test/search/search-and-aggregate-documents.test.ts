// What the documents say of search and aggregates: `GET /v1/:r/schema` marks each readable field's
// aggregates (`x-aggregates`, `x-groupable`) and searchable fields, and describes a group of the
// aggregate endpoint (`$defs.aggregates`), which real answers validate against; the OpenAPI document
// has `_search` and `_rank` where a resource has searchable fields, and only there.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';
import { SEARCH_RESOURCES } from '../helpers/search-resources.ts';
import { strictAjv } from '../openapi/openapi-fixtures.ts';

describe('search and aggregates in /schema and OpenAPI', () => {
  let t: TestApp;
  let editor: string;
  let reader: string;
  before(async () => {
    t = await startTestApp('sqlite', { resources: SEARCH_RESOURCES });
    editor = await t.as('editor');
    reader = await t.as('user', 'reader-1');
    for (const note of [
      { title: 'a', views: 3 },
      { title: 'b', views: 4, status: 'draft' },
      { title: null, views: 5 },
    ]) {
      const created = await t.request({ method: 'POST', url: '/v1/notes', auth: editor, payload: note });
      assert.equal(created.statusCode, 201, created.body);
    }
  });
  after(() => t.close());

  const schemaFor = async (auth: string) => {
    const response = await t.request({ method: 'GET', url: '/v1/notes/schema', auth });
    assert.equal(response.statusCode, 200, response.body);
    return response.json();
  };

  it('marks the aggregates each readable field takes, and the searchable ones', async () => {
    const schema = await schemaFor(editor);
    const { properties } = schema;
    assert.deepEqual(properties.views['x-aggregates'], ['sum', 'avg', 'min', 'max']);
    assert.equal(properties.views['x-groupable'], true);
    assert.deepEqual(properties.title['x-aggregates'], ['min', 'max']);
    assert.equal(properties.title['x-searchable'], true);
    assert.equal(properties.status['x-searchable'], undefined);
    assert.deepEqual(properties.created_at['x-aggregates'], ['min', 'max']);
    assert.equal(properties.created_at['x-groupable'], undefined, 'unique to each record: not a group');
    assert.deepEqual(schema['x-search'], { language: 'simple' });
    assert.deepEqual(Object.keys(schema.$defs.aggregates.properties.sum.properties), ['views']);
    assert.ok(schema.$defs.aggregates.properties.min.properties.created_at);
  });

  it("describes only the caller's readable fields", async () => {
    const schema = await schemaFor(reader);
    assert.equal(schema.properties.secret, undefined);
    assert.equal(schema.$defs.aggregates.properties.min.properties.secret, undefined);
    assert.equal(schema.$defs.aggregates.properties.secret, undefined);
  });

  it('describes the groups the aggregate endpoint answers', async () => {
    const schema = await schemaFor(editor);
    const validate = strictAjv().compile(schema.$defs.aggregates);
    const response = await t.request({
      method: 'GET',
      url: '/v1/notes/aggregate?_group=status,title&_count&_sum=views&_avg=views&_min=views,created_at&_max=title',
      auth: editor,
    });
    assert.equal(response.statusCode, 200, response.body);
    const groups = response.json().data as { attributes: unknown }[];
    assert.ok(groups.length >= 3);
    for (const group of groups) assert.ok(validate(group.attributes), JSON.stringify(validate.errors));
    assert.ok(!validate({ count: 1, sum: { title: 3 } }), 'a sum of a text field is not in it');
  });

  it('has _search and _rank in the OpenAPI document where a resource is searchable', async () => {
    const response = await t.request({ method: 'GET', url: '/openapi.json' });
    const doc = response.json();
    const names = (path: string) =>
      (doc.paths[path].get.parameters as { name?: string; $ref?: string }[]).map((p) => p.name ?? p.$ref);
    assert.ok(names('/v1/notes').includes('_search'));
    assert.ok(names('/v1/notes/aggregate').includes('_search'));
    assert.ok(!names('/v1/tags').includes('_search'));
    const sort = (
      doc.paths['/v1/notes'].get.parameters as { name?: string; schema?: { items: { enum: string[] } } }[]
    ).find((p) => p.name === '_sort')!;
    assert.ok(sort.schema!.items.enum.includes('-_rank'));
  });
});

// The generated CRUD endpoints of spec section 4, on every dialect.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { testDialects } from '../helpers/test-databases.ts';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';

const JSON_API = 'application/vnd.api+json';
const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

for (const dialect of testDialects()) {
  describe(`CRUD on ${dialect}`, () => {
    let t: TestApp;
    let editor: string;
    let categoryId: string;
    before(async () => {
      t = await startTestApp(dialect);
      editor = await t.as('editor');
      const created = await t.request({
        method: 'POST',
        url: '/v1/categories',
        auth: editor,
        payload: { name: 'News' },
      });
      assert.equal(created.statusCode, 201, created.body);
      categoryId = created.json().data.id;
    });
    after(() => t.close());

    const fullPost = () => ({
      title: 'Hello',
      body: 'First post',
      status: 'published',
      views: 42,
      rating: 4.5,
      published: true,
      published_at: '2026-01-02T03:04:05+02:00',
      publish_on: '2026-01-02',
      external_id: '0b1e1c4e-3c9a-4d8e-9a57-2f0c1e0a9b11',
      contact: 'someone@example.com',
      source: 'https://example.com/a?b=c',
      tags: { list: ['a', 'b'], nested: { n: 1, ok: true, none: null } },
      author_id: 'someone',
      category_id: categoryId,
    });

    it('creates a record with a generated UUIDv7, system fields and every field type round-tripping', async () => {
      const response = await t.request({ method: 'POST', url: '/v1/posts', auth: editor, payload: fullPost() });
      assert.equal(response.statusCode, 201, response.body);
      assert.match(String(response.headers['content-type']), /^application\/vnd\.api\+json/);
      const { data } = response.json();
      assert.equal(data.type, 'posts');
      assert.match(data.id, UUID_V7);
      assert.equal(response.headers.location, `/v1/posts/${data.id}`);
      assert.deepEqual(data.links, { self: `/v1/posts/${data.id}` });
      const expected = { ...fullPost(), published_at: '2026-01-02T01:04:05.000Z' };
      for (const [name, value] of Object.entries(expected)) assert.deepEqual(data.attributes[name], value, name);
      assert.match(data.attributes.created_at, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
      assert.equal(data.attributes.created_at, data.attributes.updated_at);

      const fetched = await t.request({ method: 'GET', url: `/v1/posts/${data.id}`, auth: editor });
      assert.equal(fetched.statusCode, 200);
      assert.deepEqual(fetched.json().data, data);
      assert.equal(typeof fetched.json().data.attributes.published, 'boolean');
    });

    it('applies defaults and leaves unset optional fields null', async () => {
      const response = await t.request({
        method: 'POST',
        url: '/v1/posts',
        auth: editor,
        payload: { title: 'Defaults' },
      });
      assert.equal(response.statusCode, 201, response.body);
      const { attributes } = response.json().data;
      assert.equal(attributes.status, 'draft');
      assert.equal(attributes.views, 0);
      assert.equal(attributes.published, false);
      assert.equal(attributes.body, null);
      assert.equal(attributes.tags, null);
    });

    it('replaces with PUT (absent fields reset) and updates with PATCH (others kept)', async () => {
      const created = (await t.request({ method: 'POST', url: '/v1/posts', auth: editor, payload: fullPost() })).json()
        .data;
      const put = await t.request({
        method: 'PUT',
        url: `/v1/posts/${created.id}`,
        auth: editor,
        payload: { title: 'Replaced' },
      });
      assert.equal(put.statusCode, 200, put.body);
      const replaced = put.json().data.attributes;
      assert.equal(replaced.title, 'Replaced');
      assert.equal(replaced.body, null);
      assert.equal(replaced.views, 0, 'default restored');
      assert.equal(replaced.created_at, created.attributes.created_at);
      assert.ok(replaced.updated_at >= created.attributes.updated_at);

      const patch = await t.request({
        method: 'PATCH',
        url: `/v1/posts/${created.id}`,
        auth: editor,
        payload: { views: 7, tags: [1, 2] },
      });
      assert.equal(patch.statusCode, 200, patch.body);
      assert.equal(patch.json().data.attributes.title, 'Replaced');
      assert.equal(patch.json().data.attributes.views, 7);
      assert.deepEqual(patch.json().data.attributes.tags, [1, 2]);
    });

    it('keeps updated_at when a PATCH or PUT changes nothing', async () => {
      const created = (
        await t.request({ method: 'POST', url: '/v1/posts', auth: editor, payload: { title: 'Same', views: 3 } })
      ).json().data;
      await new Promise((resolve) => setTimeout(resolve, 5));
      const patch = await t.request({
        method: 'PATCH',
        url: `/v1/posts/${created.id}`,
        auth: editor,
        payload: { title: 'Same', views: 3 },
      });
      assert.equal(patch.statusCode, 200);
      assert.equal(patch.json().data.attributes.updated_at, created.attributes.updated_at);
    });

    it('soft-deletes: 204, then invisible to get and list; deleted_at kept in the row', async () => {
      const created = (
        await t.request({ method: 'POST', url: '/v1/posts', auth: editor, payload: { title: 'Doomed' } })
      ).json().data;
      const deleted = await t.request({ method: 'DELETE', url: `/v1/posts/${created.id}`, auth: editor });
      assert.equal(deleted.statusCode, 204);
      assert.equal(deleted.body, '');
      assert.equal((await t.request({ method: 'GET', url: `/v1/posts/${created.id}`, auth: editor })).statusCode, 404);
      const list = await t.request({ method: 'GET', url: '/v1/posts?title=Doomed', auth: editor });
      assert.equal(list.json().meta.total, 0);
      const row = await t.ctx.store.db
        .selectFrom('posts')
        .select(['deleted_at'])
        .where('id', '=', created.id)
        .executeTakeFirst();
      assert.ok(row?.deleted_at, 'row kept with deleted_at');
      assert.equal(
        (await t.request({ method: 'DELETE', url: `/v1/posts/${created.id}`, auth: editor })).statusCode,
        404,
      );
    });

    it('hard-deletes when soft delete is off', async () => {
      const created = (
        await t.request({ method: 'POST', url: '/v1/categories', auth: editor, payload: { name: 'Temp' } })
      ).json().data;
      assert.equal(
        (await t.request({ method: 'DELETE', url: `/v1/categories/${created.id}`, auth: editor })).statusCode,
        204,
      );
      const row = await t.ctx.store.db
        .selectFrom('categories')
        .select('id')
        .where('id', '=', created.id)
        .executeTakeFirst();
      assert.equal(row, undefined);
    });

    it('cascades a deleted post to its comments, and refuses to delete a category still referenced', async () => {
      const post = (
        await t.request({
          method: 'POST',
          url: '/v1/posts',
          auth: editor,
          payload: { title: 'With comments', category_id: categoryId },
        })
      ).json().data;
      const comment = await t.request({
        method: 'POST',
        url: '/v1/comments',
        auth: editor,
        payload: { post_id: post.id, body: 'Nice' },
      });
      assert.equal(comment.statusCode, 201, comment.body);
      const blocked = await t.request({ method: 'DELETE', url: `/v1/categories/${categoryId}`, auth: editor });
      assert.equal(blocked.statusCode, 409, blocked.body);
      assert.equal(blocked.json().errors[0].code, 'CONFLICT');
      assert.equal((await t.request({ method: 'DELETE', url: `/v1/posts/${post.id}`, auth: editor })).statusCode, 204);
      const gone = await t.request({ method: 'GET', url: `/v1/comments/${comment.json().data.id}`, auth: editor });
      assert.equal(gone.statusCode, 404);
    });

    const errorCases: {
      name: string;
      method: 'POST' | 'PATCH' | 'PUT' | 'GET' | 'DELETE';
      url: string;
      payload?: unknown;
      raw?: string;
      contentType?: string;
      status: number;
      codes: string[];
      pointers?: string[];
    }[] = [
      {
        name: 'unknown field',
        method: 'POST',
        url: '/v1/posts',
        payload: { title: 'x', nope: 1 },
        status: 400,
        codes: ['INVALID_RESOURCE_DATA'],
        pointers: ['/data/attributes/nope'],
      },
      {
        name: 'system field in body',
        method: 'POST',
        url: '/v1/posts',
        payload: { title: 'x', id: 'abc' },
        status: 400,
        codes: ['INVALID_RESOURCE_DATA'],
        pointers: ['/data/attributes/id'],
      },
      {
        name: 'every problem reported',
        method: 'POST',
        url: '/v1/posts',
        payload: { views: -1, status: 'gone', published: 'yes' },
        status: 400,
        codes: ['INVALID_RESOURCE_DATA'],
        pointers: [
          '/data/attributes/views',
          '/data/attributes/status',
          '/data/attributes/published',
          '/data/attributes/title',
        ],
      },
      {
        name: 'string too long',
        method: 'POST',
        url: '/v1/posts',
        payload: { title: 'x'.repeat(201) },
        status: 400,
        codes: ['INVALID_RESOURCE_DATA'],
        pointers: ['/data/attributes/title'],
      },
      {
        name: 'integer not an integer',
        method: 'POST',
        url: '/v1/posts',
        payload: { title: 'x', views: 1.5 },
        status: 400,
        codes: ['INVALID_RESOURCE_DATA'],
        pointers: ['/data/attributes/views'],
      },
      {
        name: 'bad datetime',
        method: 'POST',
        url: '/v1/posts',
        payload: { title: 'x', published_at: 'yesterday' },
        status: 400,
        codes: ['INVALID_RESOURCE_DATA'],
        pointers: ['/data/attributes/published_at'],
      },
      {
        name: 'bad date',
        method: 'POST',
        url: '/v1/posts',
        payload: { title: 'x', publish_on: '2026-02-30' },
        status: 400,
        codes: ['INVALID_RESOURCE_DATA'],
        pointers: ['/data/attributes/publish_on'],
      },
      {
        name: 'bad uuid',
        method: 'POST',
        url: '/v1/posts',
        payload: { title: 'x', external_id: 'nope' },
        status: 400,
        codes: ['INVALID_RESOURCE_DATA'],
        pointers: ['/data/attributes/external_id'],
      },
      {
        name: 'bad email',
        method: 'POST',
        url: '/v1/posts',
        payload: { title: 'x', contact: 'not-mail' },
        status: 400,
        codes: ['INVALID_RESOURCE_DATA'],
        pointers: ['/data/attributes/contact'],
      },
      {
        name: 'bad url',
        method: 'POST',
        url: '/v1/posts',
        payload: { title: 'x', source: 'not a url' },
        status: 400,
        codes: ['INVALID_RESOURCE_DATA'],
        pointers: ['/data/attributes/source'],
      },
      {
        name: 'null for a required field',
        method: 'POST',
        url: '/v1/posts',
        payload: { title: null },
        status: 400,
        codes: ['INVALID_RESOURCE_DATA'],
        pointers: ['/data/attributes/title'],
      },
      {
        name: 'body not an object',
        method: 'POST',
        url: '/v1/posts',
        payload: [1, 2],
        status: 400,
        codes: ['INVALID_RESOURCE_DATA'],
        pointers: ['/data'],
      },
      {
        name: 'invalid JSON',
        method: 'POST',
        url: '/v1/posts',
        raw: '{"title": ',
        status: 400,
        codes: ['INVALID_JSON'],
      },
      {
        name: 'not JSON at all',
        method: 'POST',
        url: '/v1/posts',
        raw: 'title=x',
        contentType: 'application/x-www-form-urlencoded',
        status: 415,
        codes: ['UNSUPPORTED_MEDIA_TYPE'],
      },
      {
        name: 'missing relation target',
        method: 'POST',
        url: '/v1/posts',
        payload: { title: 'x', category_id: '0190c2a4-0000-7000-8000-000000000000' },
        status: 400,
        codes: ['RELATION_REFERENCE_ERROR'],
        pointers: ['/data/attributes/category_id'],
      },
      { name: 'unknown resource', method: 'GET', url: '/v1/nothing', status: 404, codes: ['RESOURCE_NOT_FOUND'] },
      {
        name: 'unknown record',
        method: 'GET',
        url: '/v1/posts/0190c2a4-0000-7000-8000-000000000000',
        status: 404,
        codes: ['RESOURCE_NOT_FOUND'],
      },
      {
        name: 'malformed record id',
        method: 'PATCH',
        url: '/v1/posts/not-a-uuid',
        payload: { title: 'x' },
        status: 404,
        codes: ['RESOURCE_NOT_FOUND'],
      },
      { name: 'no resource name', method: 'GET', url: '/v1', status: 400, codes: ['NO_RESOURCE_NAME'] },
      {
        name: 'no resource name with slash',
        method: 'POST',
        url: '/v1/',
        payload: {},
        status: 400,
        codes: ['NO_RESOURCE_NAME'],
      },
      { name: 'method not allowed', method: 'DELETE', url: '/v1/posts', status: 405, codes: ['METHOD_NOT_ALLOWED'] },
      { name: 'no such route', method: 'GET', url: '/nowhere', status: 404, codes: ['ROUTE_NOT_FOUND'] },
    ];
    for (const c of errorCases) {
      it(`answers ${c.status} ${c.codes.join(',')} for ${c.name}`, async () => {
        const response = await t.request({
          method: c.method,
          url: c.url,
          auth: editor,
          ...(c.raw !== undefined
            ? { payload: c.raw, headers: { 'content-type': c.contentType ?? 'application/json' } }
            : c.payload !== undefined
              ? { payload: c.payload as object }
              : {}),
        });
        assert.equal(response.statusCode, c.status, response.body);
        assert.match(String(response.headers['content-type']), /^application\/vnd\.api\+json/);
        const { errors } = response.json();
        assert.ok(Array.isArray(errors) && errors.length > 0);
        for (const error of errors) {
          assert.equal(error.status, String(c.status));
          assert.ok(c.codes.includes(error.code), error.code);
          assert.equal(typeof error.title, 'string');
          assert.equal(typeof error.detail, 'string');
          assert.doesNotMatch(JSON.stringify(error), /at .*\.ts:\d+/, 'no stack trace');
        }
        if (c.pointers)
          assert.deepEqual(
            errors.map((e: { source?: { pointer?: string } }) => e.source?.pointer).sort(),
            [...c.pointers].sort(),
          );
      });
    }

    it('answers 409 CONFLICT with a pointer when a unique value is taken', async () => {
      const response = await t.request({
        method: 'POST',
        url: '/v1/categories',
        auth: editor,
        payload: { name: 'News' },
      });
      assert.equal(response.statusCode, 409, response.body);
      assert.equal(response.json().errors[0].code, 'CONFLICT');
      assert.equal(response.json().errors[0].source.pointer, '/data/attributes/name');
    });

    it('answers 413 PAYLOAD_TOO_LARGE over the body limit', async () => {
      const response = await t.request({
        method: 'POST',
        url: '/v1/posts',
        auth: editor,
        payload: { title: 'x', body: 'y'.repeat(1_100_000) },
      });
      assert.equal(response.statusCode, 413);
      assert.equal(response.json().errors[0].code, 'PAYLOAD_TOO_LARGE');
    });

    it('answers 401 UNAUTHORIZED with WWW-Authenticate when no key is sent', async () => {
      const response = await t.request({ method: 'GET', url: '/v1/posts' });
      assert.equal(response.statusCode, 401);
      assert.equal(response.json().errors[0].code, 'UNAUTHORIZED');
      assert.match(String(response.headers['www-authenticate']), /^Bearer/);
    });

    it('lets the admin token read and delete but not create or update', async () => {
      const post = (
        await t.request({ method: 'POST', url: '/v1/posts', auth: editor, payload: { title: 'Admin target' } })
      ).json().data;
      assert.equal((await t.request({ method: 'GET', url: '/v1/posts', auth: t.admin })).statusCode, 200);
      assert.equal((await t.request({ method: 'GET', url: `/v1/posts/${post.id}`, auth: t.admin })).statusCode, 200);
      for (const [method, url] of [
        ['POST', '/v1/posts'],
        ['PUT', `/v1/posts/${post.id}`],
        ['PATCH', `/v1/posts/${post.id}`],
      ] as const) {
        const response = await t.request({ method, url, auth: t.admin, payload: { title: 'no' } });
        assert.equal(response.statusCode, 403, `${method} ${response.body}`);
        assert.equal(response.json().errors[0].code, 'ADMIN_TOKEN_NOT_ALLOWED');
      }
      assert.equal((await t.request({ method: 'DELETE', url: `/v1/posts/${post.id}`, auth: t.admin })).statusCode, 204);
    });

    it('echoes X-Request-Id', async () => {
      const response = await t.request({
        method: 'GET',
        url: '/v1/posts',
        auth: editor,
        headers: { 'x-request-id': 'abc-123' },
      });
      assert.equal(response.headers['x-request-id'], 'abc-123');
    });
  });
}

describe('disabled resources', () => {
  it('answers 404 RESOURCE_DISABLED on every endpoint of a disabled resource', async () => {
    const t = await startTestApp('sqlite', {
      resources: {
        hidden: {
          enabled: false,
          fields: { name: { type: 'string' } },
          permissions: { editor: { read: true, create: true } },
        },
      },
    });
    try {
      const auth = await t.as('editor');
      for (const [method, url] of [
        ['GET', '/v1/hidden'],
        ['POST', '/v1/hidden'],
        ['GET', '/v1/hidden/0190c2a4-0000-7000-8000-000000000000'],
      ] as const) {
        const response = await t.request({
          method,
          url,
          auth,
          ...(method === 'POST' ? { payload: { name: 'x' } } : {}),
        });
        assert.equal(response.statusCode, 404);
        assert.equal(response.json().errors[0].code, 'RESOURCE_DISABLED');
      }
    } finally {
      await t.close();
    }
  });
});
void JSON_API;

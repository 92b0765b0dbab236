// Role rules (docs/configuration.md, Permissions) through HTTP: actions, field lists, row filters, presets and checks.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { testDialects } from '../helpers/test-databases.ts';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';
import { BLOG_RESOURCES } from '../helpers/test-config.ts';

const resources = {
  ...BLOG_RESOURCES,
  notes: {
    fields: {
      text: { type: 'string' as const },
      priority: { type: 'integer' as const },
      owner: { type: 'string' as const },
    },
    permissions: {
      user: {
        read: { filter: { owner: { eq: '$userId' } } },
        create: { fields: ['text', 'priority'], preset: { owner: '$userId' }, check: { priority: { lte: 3 } } },
        update: { fields: ['text', 'priority'], filter: { owner: { eq: '$userId' } }, check: { priority: { lte: 3 } } },
      },
    },
  },
};

for (const dialect of testDialects()) {
  describe(`role access on ${dialect}`, () => {
    let t: TestApp;
    let editor: string;
    let alice: string;
    let bob: string;
    const ids: Record<string, string> = {};
    before(async () => {
      t = await startTestApp(dialect, { resources });
      editor = await t.as('editor');
      alice = await t.as('user', 'alice');
      bob = await t.as('user', 'bob');
      const seed = async (name: string, body: Record<string, unknown>) => {
        const response = await t.request({ method: 'POST', url: '/v1/posts', auth: editor, payload: body });
        assert.equal(response.statusCode, 201, response.body);
        ids[name] = response.json().data.id;
      };
      await seed('alicePublished', { title: 'A pub', status: 'published', author_id: 'alice', rating: 4 });
      await seed('aliceDraft', { title: 'A draft', status: 'draft', author_id: 'alice' });
      await seed('bobDraft', { title: 'B draft', status: 'draft', author_id: 'bob' });
    });
    after(() => t.close());

    const listTitles = async (auth: string, query = '') => {
      const response = await t.request({ method: 'GET', url: `/v1/posts?_sort=title${query}`, auth });
      assert.equal(response.statusCode, 200, response.body);
      return {
        titles: response.json().data.map((d: { attributes: { title: string } }) => d.attributes.title),
        body: response.json(),
      };
    };

    it('lists only rows inside the read filter, and meta.total counts only those', async () => {
      const { titles, body } = await listTitles(bob);
      assert.deepEqual(titles, ['A pub', 'B draft']);
      assert.equal(body.meta.total, 2);
      assert.deepEqual((await listTitles(alice)).titles, ['A draft', 'A pub']);
      assert.equal((await listTitles(editor)).titles.length, 3);
    });

    it('returns only readable fields', async () => {
      const { body } = await listTitles(bob);
      assert.deepEqual(Object.keys(body.data[0].attributes).sort(), [
        'author_id',
        'body',
        'category_id',
        'created_at',
        'status',
        'title',
        'updated_at',
        'views',
      ]);
    });

    it('answers 404 RESOURCE_NOT_FOUND for a row outside the read filter, on every method', async () => {
      for (const method of ['GET', 'PATCH', 'PUT', 'DELETE'] as const) {
        const response = await t.request({
          method,
          url: `/v1/posts/${ids.aliceDraft}`,
          auth: bob,
          ...(method === 'PATCH' || method === 'PUT' ? { payload: { title: 'x' } } : {}),
        });
        assert.equal(response.statusCode, 404, `${method}: ${response.body}`);
        assert.equal(response.json().errors[0].code, 'RESOURCE_NOT_FOUND');
      }
    });

    it('answers 403 FORBIDDEN for a readable row outside the update or delete filter', async () => {
      const patch = await t.request({
        method: 'PATCH',
        url: `/v1/posts/${ids.alicePublished}`,
        auth: bob,
        payload: { title: 'mine now' },
      });
      assert.equal(patch.statusCode, 403);
      assert.equal(patch.json().errors[0].code, 'FORBIDDEN');
      const del = await t.request({ method: 'DELETE', url: `/v1/posts/${ids.alicePublished}`, auth: bob });
      assert.equal(del.statusCode, 403);
    });

    it('lets the owner update and delete inside the filter', async () => {
      const patch = await t.request({
        method: 'PATCH',
        url: `/v1/posts/${ids.aliceDraft}`,
        auth: alice,
        payload: { body: 'edited' },
      });
      assert.equal(patch.statusCode, 200, patch.body);
      assert.equal(patch.json().data.attributes.body, 'edited');
    });

    const invalidFields: [string, string, string][] = [
      ['GET', '/v1/posts?rating=4', 'rating'],
      ['GET', '/v1/posts?_sort=rating', '_sort'],
      ['GET', '/v1/posts?fields=title,rating', 'fields'],
    ];
    for (const [method, url, parameter] of invalidFields) {
      it(`answers 400 INVALID_FIELDS for ${url} (field exists but is not readable)`, async () => {
        const response = await t.request({ method: method as 'GET', url, auth: bob });
        assert.equal(response.statusCode, 400, response.body);
        assert.equal(response.json().errors[0].code, 'INVALID_FIELDS');
        assert.equal(response.json().errors[0].source.parameter, parameter);
      });
    }

    it('answers 400 INVALID_FIELDS with a pointer for a body field the role may not write', async () => {
      const response = await t.request({
        method: 'POST',
        url: '/v1/posts',
        auth: bob,
        payload: { title: 'x', views: 1000 },
      });
      assert.equal(response.statusCode, 400);
      assert.equal(response.json().errors[0].code, 'INVALID_FIELDS');
      assert.equal(response.json().errors[0].source.pointer, '/data/attributes/views');
      const preset = await t.request({
        method: 'POST',
        url: '/v1/posts',
        auth: bob,
        payload: { title: 'x', author_id: 'alice' },
      });
      assert.equal(preset.statusCode, 400);
      assert.equal(preset.json().errors[0].source.pointer, '/data/attributes/author_id');
    });

    it('sets preset fields server-side', async () => {
      const response = await t.request({
        method: 'POST',
        url: '/v1/posts',
        auth: bob,
        payload: { title: 'Bob writes' },
      });
      assert.equal(response.statusCode, 201, response.body);
      assert.equal(response.json().data.attributes.author_id, 'bob');
    });

    it('answers 403 FORBIDDEN for an action the role lacks and for a role without rules', async () => {
      const comments = await t.request({ method: 'GET', url: '/v1/comments', auth: bob });
      assert.equal(comments.statusCode, 403);
      assert.equal(comments.json().errors[0].code, 'FORBIDDEN');
      const guest = await t.as('guest');
      for (const [method, url] of [
        ['GET', '/v1/posts'],
        ['POST', '/v1/posts'],
        ['DELETE', `/v1/posts/${ids.alicePublished}`],
      ] as const) {
        const response = await t.request({
          method,
          url,
          auth: guest,
          ...(method === 'POST' ? { payload: { title: 'x' } } : {}),
        });
        assert.equal(response.statusCode, 403, `${method} ${url}`);
      }
    });

    it('enforces check rules on create and update, writing nothing when they fail', async () => {
      const ok = await t.request({
        method: 'POST',
        url: '/v1/notes',
        auth: bob,
        payload: { text: 'low', priority: 2 },
      });
      assert.equal(ok.statusCode, 201, ok.body);
      assert.equal(ok.json().data.attributes.owner, 'bob');
      const high = await t.request({
        method: 'POST',
        url: '/v1/notes',
        auth: bob,
        payload: { text: 'high', priority: 5 },
      });
      assert.equal(high.statusCode, 403);
      assert.equal(high.json().errors[0].code, 'FORBIDDEN');
      const raise = await t.request({
        method: 'PATCH',
        url: `/v1/notes/${ok.json().data.id}`,
        auth: bob,
        payload: { priority: 9 },
      });
      assert.equal(raise.statusCode, 403);
      const list = await t.request({ method: 'GET', url: '/v1/notes', auth: bob });
      assert.deepEqual(
        list.json().data.map((d: { attributes: { priority: number } }) => d.attributes.priority),
        [2],
      );
    });
  });
}

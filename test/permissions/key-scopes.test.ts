// Spec 2.2 / docs/roles.md: a key's scoped permissions are intersected with its role's on every request.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { testDialects } from '../helpers/test-databases.ts';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';
import { TEST_PASSWORD } from '../helpers/test-auth.ts';

for (const dialect of testDialects()) {
  describe(`key scopes on ${dialect}`, () => {
    let t: TestApp;
    let email: string;
    let userId: string;
    before(async () => {
      t = await startTestApp(dialect);
      email = `scoped-${randomBytes(4).toString('hex')}@example.test`;
      userId = (await t.ctx.auth.users.create({ email, password: TEST_PASSWORD, role: 'user', verified: true })).id;
      const editor = await t.as('editor');
      const seeded = await t.request({
        method: 'POST',
        url: '/v1/posts',
        auth: editor,
        payload: { title: 'Public', body: 'b', status: 'published', rating: 3 },
      });
      assert.equal(seeded.statusCode, 201, seeded.body);
    });
    after(() => t.close());

    const keyWith = async (permissions: unknown): Promise<string> => {
      const response = await t.request({
        method: 'POST',
        url: '/token',
        payload: { email, password: TEST_PASSWORD, permissions },
      });
      assert.equal(response.statusCode, 201, response.body);
      assert.deepEqual(response.json().permissions, permissions, 'stored as given');
      return `Bearer ${response.json().key}`;
    };

    it('narrows readable fields to the intersection, never beyond the role', async () => {
      // `rating` is asked for by the key but not readable by the role: it stays hidden.
      const key = await keyWith({ posts: { read: ['title', 'rating'] } });
      const response = await t.request({ method: 'GET', url: '/v1/posts', auth: key });
      assert.equal(response.statusCode, 200, response.body);
      assert.deepEqual(Object.keys(response.json().data[0].attributes).sort(), ['created_at', 'title', 'updated_at']);
      const body = await t.request({ method: 'GET', url: '/v1/posts?fields=body', auth: key });
      assert.equal(body.statusCode, 400);
      assert.equal(body.json().errors[0].code, 'INVALID_FIELDS');
      const rating = await t.request({ method: 'GET', url: '/v1/posts?rating=3', auth: key });
      assert.equal(rating.json().errors[0].code, 'INVALID_FIELDS');
    });

    it('answers 403 KEY_PERMISSION_DENIED for an action or resource the key lacks, FORBIDDEN when the role lacks it', async () => {
      const key = await keyWith({ posts: { read: ['*'] } });
      const create = await t.request({ method: 'POST', url: '/v1/posts', auth: key, payload: { title: 'x' } });
      assert.equal(create.statusCode, 403);
      assert.equal(create.json().errors[0].code, 'KEY_PERMISSION_DENIED');
      const categories = await t.request({ method: 'GET', url: '/v1/categories', auth: key });
      assert.equal(categories.statusCode, 403);
      assert.equal(categories.json().errors[0].code, 'KEY_PERMISSION_DENIED');
      const comments = await t.request({
        method: 'GET',
        url: '/v1/comments',
        auth: await keyWith({ comments: { read: ['*'] } }),
      });
      assert.equal(comments.statusCode, 403);
      assert.equal(comments.json().errors[0].code, 'FORBIDDEN', 'the role has no rule for comments');
    });

    it('treats "*" as every field the role allows and [] as the action with no fields', async () => {
      const all = await keyWith({ posts: { read: ['*'], create: ['*'] } });
      const listed = await t.request({ method: 'GET', url: '/v1/posts', auth: all });
      assert.deepEqual(Object.keys(listed.json().data[0].attributes).sort(), [
        'author_id',
        'body',
        'category_id',
        'created_at',
        'status',
        'title',
        'updated_at',
        'views',
      ]);
      const created = await t.request({
        method: 'POST',
        url: '/v1/posts',
        auth: all,
        payload: { title: 'Mine', status: 'draft' },
      });
      assert.equal(created.statusCode, 201, created.body);
      assert.equal(created.json().data.attributes.author_id, userId, 'preset still applies');
      const none = await keyWith({ posts: { read: [] } });
      const bare = await t.request({ method: 'GET', url: '/v1/posts', auth: none });
      assert.equal(bare.statusCode, 200);
      assert.deepEqual(Object.keys(bare.json().data[0].attributes).sort(), ['created_at', 'updated_at']);
    });

    it('gives a key issued without permissions the full permissions of the role', async () => {
      const response = await t.request({ method: 'POST', url: '/token', payload: { email, password: TEST_PASSWORD } });
      assert.equal(response.json().permissions, null);
      const key = `Bearer ${response.json().key}`;
      const listed = await t.request({ method: 'GET', url: '/v1/posts', auth: key });
      assert.ok(Object.keys(listed.json().data[0].attributes).includes('views'));
      const create = await t.request({
        method: 'POST',
        url: '/v1/posts',
        auth: key,
        payload: { title: 'Role default' },
      });
      assert.equal(create.statusCode, 201);
    });

    const malformed: [string, unknown][] = [
      ['an array', [1]],
      ['an unknown action', { posts: { publish: ['title'] } }],
      ['fields that are not strings', { posts: { read: [1] } }],
      ['fields not in a list', { posts: { read: 'title' } }],
      ['an unknown resource', { nothing: { read: ['*'] } }],
    ];
    for (const [name, permissions] of malformed) {
      it(`answers 400 INVALID_PERMISSIONS at /token for ${name}`, async () => {
        const response = await t.request({
          method: 'POST',
          url: '/token',
          payload: { email, password: TEST_PASSWORD, permissions },
        });
        assert.equal(response.statusCode, 400, response.body);
        assert.equal(response.json().errors[0].code, 'INVALID_PERMISSIONS');
      });
    }
  });
}

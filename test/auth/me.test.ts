// GET /me: a key holder finds out who they are, which role is in force, and what is left of the key's
// limits, without copying ids from the CLI's output.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';
import { testDialects } from '../helpers/test-databases.ts';
import { TEST_PASSWORD } from '../helpers/test-auth.ts';

for (const dialect of testDialects()) {
  describe(`GET /me (${dialect})`, () => {
    let t: TestApp;
    before(async () => {
      t = await startTestApp(dialect);
    });
    after(() => t.close());

    it('answers 401 without a key', async () => {
      const response = await t.request({ method: 'GET', url: '/me' });
      assert.equal(response.statusCode, 401);
      assert.equal(response.json().errors[0].code, 'UNAUTHORIZED');
    });

    it('names the user, the role in force, and the key with its limits', async () => {
      const auth = await t.as('editor');
      const response = await t.request({ method: 'GET', url: '/me', auth });
      assert.equal(response.statusCode, 200);
      assert.equal(response.headers['content-type'], 'application/vnd.api+json');
      const { data } = response.json();
      assert.equal(data.type, 'me');
      const me = data.attributes;
      assert.equal(me.kind, 'key');
      assert.equal(data.id, me.userId);
      assert.equal(me.role, 'editor');
      assert.equal(me.primaryRole, 'editor');
      assert.deepEqual(me.allowedRoles, []);
      assert.match(me.email, /@/);
      assert.equal(typeof me.key.id, 'string');
      assert.equal(me.key.rateLimit.max, t.ctx.config.apiKeys.rateLimit.max);
      assert.equal(me.key.rateLimit.timeWindow, t.ctx.config.apiKeys.rateLimit.timeWindow);
      assert.equal(me.key.rateLimit.remaining, Number(response.headers['ratelimit-remaining']));
      assert.equal(JSON.stringify(data).includes(auth.replace('Bearer ', '')), false, 'the key itself is never shown');
    });

    it('says what the request may do per resource: the allowed actions and their fields, by role and key scopes', async () => {
      const asUser = (await t.request({ method: 'GET', url: '/me', auth: await t.as('user', 'access-user') })).json()
        .data.attributes;
      assert.deepEqual(asUser.access.posts, {
        read: ['title', 'body', 'status', 'views', 'author_id', 'category_id'],
        create: ['title', 'body', 'status', 'category_id'],
        update: ['title', 'body', 'status'],
        delete: [],
      });
      assert.deepEqual(asUser.access.categories, { read: ['name', 'description'] });
      assert.equal(asUser.access.comments, undefined, 'no action on comments: left out');
      // A key scoped to reading titles may do only that, whatever its role allows.
      const email = asUser.email as string;
      const scoped = await t.request({
        method: 'POST',
        url: '/token',
        payload: { email, password: TEST_PASSWORD, permissions: { posts: { read: ['title'] } } },
      });
      assert.equal(scoped.statusCode, 201, scoped.body);
      const access = (
        await t.request({ method: 'GET', url: '/me', auth: `Bearer ${scoped.json().key as string}` })
      ).json().data.attributes.access;
      assert.deepEqual(access, { posts: { read: ['title'] } });
    });

    it('shows the role a request switched to with X-Service-Role', async () => {
      const auth = await t.as('editor', 'switcher');
      const before = (await t.request({ method: 'GET', url: '/me', auth })).json().data;
      const patched = await t.request({
        method: 'PATCH',
        url: `/admin/users/${before.id}`,
        auth: t.admin,
        payload: { allowedRoles: ['user'] },
      });
      assert.equal(patched.statusCode, 200, patched.body);
      const switched = await t.request({ method: 'GET', url: '/me', auth, headers: { 'x-service-role': 'user' } });
      assert.equal(switched.statusCode, 200, switched.body);
      assert.equal(switched.json().data.attributes.role, 'user');
      assert.equal(switched.json().data.attributes.primaryRole, 'editor');
      assert.deepEqual(switched.json().data.attributes.allowedRoles, ['user']);
    });

    it('answers the admin token as the administrator', async () => {
      const response = await t.request({ method: 'GET', url: '/me', auth: t.admin });
      assert.equal(response.statusCode, 200);
      assert.deepEqual(response.json().data, { type: 'me', id: 'admin', attributes: { kind: 'admin' } });
    });

    it('DELETE /me/key revokes the calling key at once, and only that key', async () => {
      const kept = await t.as('editor', 'revoker');
      const email = (await t.request({ method: 'GET', url: '/me', auth: kept })).json().data.attributes.email as string;
      const issued = await t.request({
        method: 'POST',
        url: '/token',
        payload: { email, password: TEST_PASSWORD, name: 'console', expiresIn: 3600 },
      });
      assert.equal(issued.statusCode, 201, issued.body);
      const revoked = `Bearer ${issued.json().key as string}`;
      // Used once first, so the key is cached in memory: the revocation must not wait for the cache to expire.
      assert.equal((await t.request({ method: 'GET', url: '/v1/posts', auth: revoked })).statusCode, 200);
      const keyId = (await t.request({ method: 'GET', url: '/me', auth: revoked })).json().data.attributes.key
        .id as string;

      const response = await t.request({ method: 'DELETE', url: '/me/key', auth: revoked });
      assert.equal(response.statusCode, 204, response.body);
      assert.equal(response.body, '');

      for (const url of ['/me', '/v1/posts']) {
        const refused = await t.request({ method: 'GET', url, auth: revoked });
        assert.equal(refused.statusCode, 401, url);
        assert.equal(refused.json().errors[0].code, 'INVALID_API_KEY', url);
      }
      assert.equal((await t.request({ method: 'DELETE', url: '/me/key', auth: revoked })).statusCode, 401);
      assert.equal((await t.request({ method: 'GET', url: `/admin/keys/${keyId}`, auth: t.admin })).statusCode, 404);
      // The user's other key is untouched.
      const other = await t.request({ method: 'GET', url: '/me', auth: kept });
      assert.equal(other.statusCode, 200, other.body);
      assert.equal((await t.request({ method: 'GET', url: '/v1/posts', auth: kept })).statusCode, 200);
    });

    it('DELETE /me/key answers 401 without a key and 403 to the admin token, which is not revoked', async () => {
      const anonymous = await t.request({ method: 'DELETE', url: '/me/key' });
      assert.equal(anonymous.statusCode, 401);
      assert.equal(anonymous.json().errors[0].code, 'UNAUTHORIZED');
      const admin = await t.request({ method: 'DELETE', url: '/me/key', auth: t.admin });
      assert.equal(admin.statusCode, 403);
      assert.equal(admin.json().errors[0].code, 'ADMIN_TOKEN_NOT_ALLOWED');
      assert.equal((await t.request({ method: 'GET', url: '/me', auth: t.admin })).statusCode, 200);
    });
  });
}

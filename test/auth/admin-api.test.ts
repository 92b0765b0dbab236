// The admin API for users and keys (docs/admin-api.md): JSON:API documents, filters and paging, changes,
// deletes, 404s, and that only the admin token gets in. A key's secret or hash never appears.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { testDialects } from '../helpers/test-databases.ts';
import { TEST_ADMIN_TOKEN } from '../helpers/test-config.ts';
import { bearer, errorCodes, errorPointers, startAuthSuite, userWithKey, type AuthSuite } from './auth-fixtures.ts';

const ADMIN = { authorization: `Bearer ${TEST_ADMIN_TOKEN}` };

for (const dialect of testDialects()) {
  describe(`admin API on ${dialect}`, () => {
    let suite: AuthSuite;
    let alice: Awaited<ReturnType<typeof userWithKey>>;
    let bob: Awaited<ReturnType<typeof userWithKey>>;

    before(async () => {
      suite = await startAuthSuite(dialect);
      alice = await userWithKey(suite.t, { name: 'alice key' });
      bob = await userWithKey(suite.t);
    });
    after(() => suite.close());

    const admin = (method: 'GET' | 'PATCH' | 'DELETE', url: string, payload?: object) =>
      suite.t.inject({ method, url, headers: ADMIN, ...(payload ? { payload } : {}) });

    const guarded = ['/admin/users', '/admin/keys'];
    for (const url of guarded) {
      it(`answers 401 UNAUTHORIZED on ${url} without a token`, async () => {
        const response = await suite.t.inject({ method: 'GET', url });
        assert.equal(response.statusCode, 401);
        assert.deepEqual(errorCodes(response), ['UNAUTHORIZED']);
      });
      it(`answers 403 FORBIDDEN on ${url} for an API key`, async () => {
        const response = await suite.t.inject({ method: 'GET', url, headers: bearer(alice.key) });
        assert.equal(response.statusCode, 403);
        assert.deepEqual(errorCodes(response), ['FORBIDDEN']);
      });
      it(`answers 401 INVALID_API_KEY on ${url} for an unknown token`, async () => {
        const response = await suite.t.inject({ method: 'GET', url, headers: { authorization: 'Bearer svc_nope' } });
        assert.deepEqual(errorCodes(response), ['INVALID_API_KEY']);
      });
    }

    it('lists users as JSON:API documents with meta.total, filtered by email and paged', async () => {
      const all = await admin('GET', '/admin/users');
      assert.equal(all.statusCode, 200);
      assert.match(String(all.headers['content-type']), /^application\/vnd\.api\+json/);
      const body = all.json();
      assert.equal(body.meta.total, 2);
      assert.deepEqual(
        body.data.map((u: { type: string }) => u.type),
        ['users', 'users'],
      );
      const first = body.data[0];
      assert.deepEqual(Object.keys(first.attributes).sort(), [
        'allowedRoles',
        'createdAt',
        'email',
        'emailVerified',
        'image',
        'name',
        'primaryRole',
        'updatedAt',
      ]);

      const byEmail = (await admin('GET', `/admin/users?email=${encodeURIComponent(bob.email.toUpperCase())}`)).json();
      assert.equal(byEmail.meta.total, 1);
      assert.equal(byEmail.data[0].id, bob.userId);

      const paged = (await admin('GET', '/admin/users?_limit=1&_offset=1')).json();
      assert.equal(paged.data.length, 1);
      assert.equal(paged.meta.total, 2);
    });

    const badQueries = [
      '/admin/users?_limit=0',
      '/admin/users?_limit=1001',
      '/admin/users?_offset=-1',
      '/admin/users?_limit=abc',
      '/admin/keys?userId=',
    ];
    for (const url of badQueries) {
      it(`answers 400 INVALID_QUERY_PARAMS for ${url}`, async () => {
        const response = await admin('GET', url);
        assert.equal(response.statusCode, 400);
        assert.deepEqual(errorCodes(response), ['INVALID_QUERY_PARAMS']);
      });
    }

    it('reads one user, and answers 404 RESOURCE_NOT_FOUND for an unknown id', async () => {
      const one = await admin('GET', `/admin/users/${alice.userId}`);
      assert.equal(one.statusCode, 200);
      assert.equal(one.json().data.attributes.email, alice.email);
      assert.equal(one.json().data.attributes.primaryRole, 'user');
      for (const method of ['GET', 'PATCH', 'DELETE'] as const) {
        const missing = await admin(
          method,
          '/admin/users/no-such-user',
          method === 'PATCH' ? { primaryRole: 'x' } : undefined,
        );
        assert.equal(missing.statusCode, 404);
        assert.deepEqual(errorCodes(missing), ['RESOURCE_NOT_FOUND']);
      }
    });

    it('changes roles, taking allowedRoles as an array or a JSON-encoded string, stored JSON-encoded', async () => {
      const asArray = await admin('PATCH', `/admin/users/${alice.userId}`, {
        primaryRole: 'editor',
        allowedRoles: ['user', 'editor', 'user'],
      });
      assert.equal(asArray.statusCode, 200);
      assert.equal(asArray.json().data.attributes.primaryRole, 'editor');
      assert.equal(asArray.json().data.attributes.allowedRoles, '["user","editor"]');
      const asString = await admin('PATCH', `/admin/users/${alice.userId}`, { allowedRoles: '["editor"]' });
      assert.equal(asString.json().data.attributes.allowedRoles, '["editor"]');
      await admin('PATCH', `/admin/users/${alice.userId}`, { primaryRole: 'user', allowedRoles: [] });
    });

    const badUserPatches: { name: string; body: object; pointer: string }[] = [
      { name: 'an empty role', body: { primaryRole: '' }, pointer: '/data/attributes/primaryRole' },
      { name: 'a role that is not a string', body: { primaryRole: 7 }, pointer: '/data/attributes/primaryRole' },
      {
        name: 'allowedRoles that is not a list',
        body: { allowedRoles: 'editor' },
        pointer: '/data/attributes/allowedRoles',
      },
      {
        name: 'allowedRoles with a non-string',
        body: { allowedRoles: ['editor', 3] },
        // The entry itself, as fieldIds of a webhook are pointed at.
        pointer: '/data/attributes/allowedRoles/1',
      },
      { name: 'an attribute the API does not change', body: { email: 'x@y.z' }, pointer: '/data/attributes/email' },
    ];
    for (const scenario of badUserPatches) {
      it(`answers 400 INVALID_RESOURCE_DATA to a user PATCH with ${scenario.name}`, async () => {
        const response = await admin('PATCH', `/admin/users/${alice.userId}`, scenario.body);
        assert.equal(response.statusCode, 400);
        assert.deepEqual(errorCodes(response), ['INVALID_RESOURCE_DATA']);
        assert.deepEqual(errorPointers(response), [scenario.pointer]);
      });
    }

    it('lists keys, filtered by userId, without secrets or hashes', async () => {
      const all = await admin('GET', '/admin/keys');
      assert.equal(all.statusCode, 200);
      assert.equal(all.json().meta.total, 2);
      for (const { key } of [alice, bob]) {
        assert.ok(!all.body.includes(key.slice(10)), 'no secret in the listing');
        assert.ok(!all.body.includes(createHash('sha256').update(key).digest('hex')), 'no hash in the listing');
      }
      const mine = (await admin('GET', `/admin/keys?userId=${alice.userId}`)).json();
      assert.equal(mine.meta.total, 1);
      const resource = mine.data[0];
      assert.equal(resource.type, 'api-keys');
      assert.equal(resource.id, alice.keyId);
      assert.deepEqual(Object.keys(resource.attributes).sort(), [
        'console',
        'createdAt',
        'enabled',
        'expiresAt',
        'lastRequest',
        'metadata',
        'name',
        'permissions',
        'prefix',
        'rateLimitEnabled',
        'rateLimitMax',
        'rateLimitTimeWindow',
        'refillAmount',
        'refillInterval',
        'remaining',
        'requestCount',
        'start',
        'updatedAt',
        'userId',
      ]);
      assert.equal(resource.attributes.name, 'alice key');
      assert.equal(resource.attributes.enabled, true);
      assert.equal(resource.attributes.rateLimitEnabled, true);
      assert.equal(resource.attributes.userId, alice.userId);
    });

    it('changes a key: limits, permissions, expiry; null clears a setting', async () => {
      const expiresAt = new Date(Date.now() + 86_400_000).toISOString();
      const patch = await admin('PATCH', `/admin/keys/${bob.keyId}`, {
        rateLimitMax: 5000,
        rateLimitTimeWindow: 1000,
        permissions: { posts: { read: ['*'] } },
        expiresAt,
        remaining: 10,
        refillInterval: 60_000,
        refillAmount: 10,
      });
      assert.equal(patch.statusCode, 200, patch.body);
      const attributes = patch.json().data.attributes;
      assert.equal(attributes.rateLimitMax, 5000);
      assert.equal(attributes.rateLimitTimeWindow, 1000);
      assert.deepEqual(attributes.permissions, { posts: { read: ['*'] } });
      assert.equal(attributes.expiresAt, expiresAt);
      assert.equal(attributes.remaining, 10);
      const principal = await suite.t.ctx.auth.authenticate({ authorization: `Bearer ${bob.key}` });
      assert.deepEqual(principal.principal.kind === 'key' && principal.principal.keyPermissions, {
        posts: { read: ['*'] },
      });
      assert.equal(principal.rateLimit?.limit, 5000);

      const cleared = await admin('PATCH', `/admin/keys/${bob.keyId}`, {
        rateLimitMax: null,
        permissions: null,
        expiresAt: null,
        remaining: null,
        refillInterval: null,
        refillAmount: null,
      });
      assert.equal(cleared.statusCode, 200, cleared.body);
      assert.equal(cleared.json().data.attributes.rateLimitMax, null);
      assert.equal(cleared.json().data.attributes.permissions, null);
      assert.equal(cleared.json().data.attributes.remaining, null);
    });

    const badKeyPatches: { name: string; body: object; code: string; pointer: string }[] = [
      {
        name: 'enabled that is not a boolean',
        body: { enabled: 'no' },
        code: 'INVALID_RESOURCE_DATA',
        pointer: '/data/attributes/enabled',
      },
      {
        name: 'a zero rateLimitMax',
        body: { rateLimitMax: 0 },
        code: 'INVALID_RESOURCE_DATA',
        pointer: '/data/attributes/rateLimitMax',
      },
      {
        name: 'expiresAt that is not a date-time',
        body: { expiresAt: 'tomorrow' },
        code: 'INVALID_RESOURCE_DATA',
        pointer: '/data/attributes/expiresAt',
      },
      {
        name: 'refillAmount without refillInterval',
        body: { refillAmount: 3 },
        code: 'INVALID_RESOURCE_DATA',
        pointer: '/data/attributes/refillInterval',
      },
      {
        name: 'an attribute that cannot change',
        body: { userId: 'someone' },
        code: 'INVALID_RESOURCE_DATA',
        pointer: '/data/attributes/userId',
      },
      {
        name: 'malformed permissions',
        body: { permissions: { posts: { read: 'title' } } },
        code: 'INVALID_PERMISSIONS',
        pointer: '/data/attributes/permissions/posts/read',
      },
    ];
    for (const scenario of badKeyPatches) {
      it(`answers 400 ${scenario.code} to a key PATCH with ${scenario.name}`, async () => {
        const response = await admin('PATCH', `/admin/keys/${bob.keyId}`, scenario.body);
        assert.equal(response.statusCode, 400, response.body);
        assert.deepEqual(errorCodes(response), [scenario.code]);
        assert.deepEqual(errorPointers(response), [scenario.pointer]);
      });
    }

    it('answers 404 RESOURCE_NOT_FOUND for an unknown key id', async () => {
      for (const method of ['GET', 'PATCH', 'DELETE'] as const) {
        const response = await admin(
          method,
          '/admin/keys/00000000-0000-4000-8000-000000000000',
          method === 'PATCH' ? { enabled: false } : undefined,
        );
        assert.equal(response.statusCode, 404);
        assert.deepEqual(errorCodes(response), ['RESOURCE_NOT_FOUND']);
      }
    });

    it('deletes a user with their keys', async () => {
      const carol = await userWithKey(suite.t);
      assert.equal((await admin('DELETE', `/admin/users/${carol.userId}`)).statusCode, 204);
      assert.equal((await admin('GET', `/admin/users/${carol.userId}`)).statusCode, 404);
      assert.equal((await admin('GET', `/admin/keys?userId=${carol.userId}`)).json().meta.total, 0);
      const token = await suite.t.inject({
        method: 'POST',
        url: '/token',
        payload: { email: carol.email, password: 'correct horse battery' },
      });
      assert.deepEqual(errorCodes(token), ['INVALID_CREDENTIALS']);
    });
  });
}

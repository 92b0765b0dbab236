// Authenticating resource requests: every 401, the admin token, roles and X-Service-Role, and how
// admin changes to keys and users take effect on the very next request.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { testDialects } from '../helpers/test-databases.ts';
import { TEST_ADMIN_TOKEN } from '../helpers/test-config.ts';
import { bearer, errorCodes, startAuthSuite, userWithKey, type AuthSuite } from './auth-fixtures.ts';

const ADMIN = { authorization: `Bearer ${TEST_ADMIN_TOKEN}` };

for (const dialect of testDialects()) {
  describe(`authentication on ${dialect}`, () => {
    let suite: AuthSuite;
    before(async () => {
      suite = await startAuthSuite(dialect);
    });
    after(() => suite.close());

    const get = (url: string, headers: Record<string, string> = {}) => suite.t.inject({ method: 'GET', url, headers });

    it('serves a request made with a fresh key', async () => {
      const { key } = await userWithKey(suite.t);
      const response = await get('/v1/posts', bearer(key));
      assert.equal(response.statusCode, 200, response.body);
    });

    const unauthorized: { name: string; authorization?: string; code: string }[] = [
      { name: 'no Authorization header', code: 'UNAUTHORIZED' },
      { name: 'an empty Authorization header', authorization: '', code: 'UNAUTHORIZED' },
      { name: 'another scheme', authorization: 'Basic dXNlcjpwYXNz', code: 'UNAUTHORIZED' },
      { name: 'Bearer without a token', authorization: 'Bearer', code: 'UNAUTHORIZED' },
      { name: 'two tokens', authorization: 'Bearer svc_a svc_b', code: 'UNAUTHORIZED' },
      {
        name: 'a token too long to be one of ours',
        authorization: `Bearer svc_${'a'.repeat(600)}`,
        code: 'UNAUTHORIZED',
      },
      { name: 'an unknown svc_ key', authorization: `Bearer svc_${'A'.repeat(43)}`, code: 'INVALID_API_KEY' },
      { name: 'a token that is not a key at all', authorization: 'Bearer hello', code: 'INVALID_API_KEY' },
    ];
    for (const scenario of unauthorized) {
      it(`answers 401 ${scenario.code} for ${scenario.name}`, async () => {
        const response = await get(
          '/v1/posts',
          scenario.authorization === undefined ? {} : { authorization: scenario.authorization },
        );
        assert.equal(response.statusCode, 401);
        assert.deepEqual(errorCodes(response), [scenario.code]);
        assert.match(String(response.headers['www-authenticate']), /^Bearer/);
      });
    }

    it('answers 401 API_KEY_DISABLED for a disabled key, and serves it again once re-enabled', async () => {
      const { key, keyId } = await userWithKey(suite.t);
      assert.equal((await get('/v1/posts', bearer(key))).statusCode, 200);
      const disable = await suite.t.inject({
        method: 'PATCH',
        url: `/admin/keys/${keyId}`,
        headers: ADMIN,
        payload: { enabled: false },
      });
      assert.equal(disable.statusCode, 200);
      const refused = await get('/v1/posts', bearer(key));
      assert.equal(refused.statusCode, 401);
      assert.deepEqual(errorCodes(refused), ['API_KEY_DISABLED']);
      assert.match(String(refused.headers['www-authenticate']), /^Bearer error="invalid_token"/);
      await suite.t.inject({
        method: 'PATCH',
        url: `/admin/keys/${keyId}`,
        headers: ADMIN,
        payload: { enabled: true },
      });
      assert.equal((await get('/v1/posts', bearer(key))).statusCode, 200);
    });

    it('answers 401 API_KEY_EXPIRED past expiresAt and keeps the key row', async () => {
      const { key, keyId } = await userWithKey(suite.t, { expiresIn: 3600 });
      assert.equal((await get('/v1/posts', bearer(key))).statusCode, 200);
      const past = new Date(Date.now() - 1000).toISOString();
      await suite.t.inject({
        method: 'PATCH',
        url: `/admin/keys/${keyId}`,
        headers: ADMIN,
        payload: { expiresAt: past },
      });
      const refused = await get('/v1/posts', bearer(key));
      assert.equal(refused.statusCode, 401);
      assert.deepEqual(errorCodes(refused), ['API_KEY_EXPIRED']);
      const row = await suite.t.inject({ method: 'GET', url: `/admin/keys/${keyId}`, headers: ADMIN });
      assert.equal(row.statusCode, 200);
      assert.equal(row.json().data.attributes.expiresAt, past);
    });

    it('answers 401 INVALID_API_KEY once the key is deleted', async () => {
      const { key, keyId } = await userWithKey(suite.t);
      assert.equal((await get('/v1/posts', bearer(key))).statusCode, 200);
      assert.equal(
        (await suite.t.inject({ method: 'DELETE', url: `/admin/keys/${keyId}`, headers: ADMIN })).statusCode,
        204,
      );
      assert.deepEqual(errorCodes(await get('/v1/posts', bearer(key))), ['INVALID_API_KEY']);
    });

    it('answers 401 INVALID_API_KEY once the key owner is deleted', async () => {
      const { key, userId } = await userWithKey(suite.t);
      assert.equal((await get('/v1/posts', bearer(key))).statusCode, 200);
      assert.equal(
        (await suite.t.inject({ method: 'DELETE', url: `/admin/users/${userId}`, headers: ADMIN })).statusCode,
        204,
      );
      assert.deepEqual(errorCodes(await get('/v1/posts', bearer(key))), ['INVALID_API_KEY']);
    });

    it('lets the admin token read resources (spec 5.4) but not create them', async () => {
      assert.equal((await get('/v1/posts', ADMIN)).statusCode, 200);
      const create = await suite.t.inject({
        method: 'POST',
        url: '/v1/posts',
        headers: ADMIN,
        payload: { title: 'x' },
      });
      assert.equal(create.statusCode, 403);
      assert.deepEqual(errorCodes(create), ['ADMIN_TOKEN_NOT_ALLOWED']);
    });

    it('resolves the admin token to the admin principal', async () => {
      const { principal, rateLimit } = await suite.t.ctx.auth.authenticate({
        authorization: `Bearer ${TEST_ADMIN_TOKEN}`,
      });
      assert.deepEqual(principal, { kind: 'admin' });
      assert.equal(rateLimit, undefined);
    });

    it('acts as primaryRole, and as an allowed role on X-Service-Role', async () => {
      const { key, userId } = await userWithKey(suite.t);
      // comments are readable by editors only
      assert.deepEqual(errorCodes(await get('/v1/comments', bearer(key))), ['FORBIDDEN']);
      const denied = await get('/v1/comments', { ...bearer(key), 'x-service-role': 'editor' });
      assert.equal(denied.statusCode, 403);
      assert.deepEqual(errorCodes(denied), ['FORBIDDEN']);

      const patch = await suite.t.inject({
        method: 'PATCH',
        url: `/admin/users/${userId}`,
        headers: ADMIN,
        payload: { allowedRoles: ['editor'] },
      });
      assert.equal(patch.statusCode, 200);
      assert.equal((await get('/v1/comments', { ...bearer(key), 'x-service-role': 'editor' })).statusCode, 200);
      // the primary role is unchanged, and naming it explicitly is always allowed
      assert.deepEqual(errorCodes(await get('/v1/comments', bearer(key))), ['FORBIDDEN']);
      assert.equal((await get('/v1/posts', { ...bearer(key), 'x-service-role': 'user' })).statusCode, 200);
      assert.deepEqual(errorCodes(await get('/v1/posts', { ...bearer(key), 'x-service-role': 'owner' })), [
        'FORBIDDEN',
      ]);
    });

    it('applies a primaryRole change on the next request', async () => {
      const { key, userId } = await userWithKey(suite.t);
      assert.equal((await get('/v1/comments', bearer(key))).statusCode, 403);
      await suite.t.inject({
        method: 'PATCH',
        url: `/admin/users/${userId}`,
        headers: ADMIN,
        payload: { primaryRole: 'editor' },
      });
      assert.equal((await get('/v1/comments', bearer(key))).statusCode, 200);
    });

    it('returns the key principal with its permissions (null when issued without)', async () => {
      const plain = await userWithKey(suite.t);
      const scoped = await userWithKey(suite.t, { permissions: { posts: { read: ['title'] } } });
      const a = await suite.t.ctx.auth.authenticate({ authorization: `Bearer ${plain.key}` });
      assert.deepEqual(a.principal, {
        kind: 'key',
        keyId: plain.keyId,
        userId: plain.userId,
        role: 'user',
        keyPermissions: null,
      });
      const b = await suite.t.ctx.auth.authenticate({ authorization: `Bearer ${scoped.key}` });
      assert.deepEqual(b.principal, {
        kind: 'key',
        keyId: scoped.keyId,
        userId: scoped.userId,
        role: 'user',
        keyPermissions: { posts: { read: ['title'] } },
      });
    });

    it('accepts the stream query token when no Authorization header is sent', async () => {
      const { key, keyId } = await userWithKey(suite.t);
      const { principal } = await suite.t.ctx.auth.authenticate({ queryToken: key });
      assert.equal(principal.kind === 'key' && principal.keyId, keyId);
    });
  });
}

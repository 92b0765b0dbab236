// POST /token: sign-up then key issuance, the key's format and storage, and every error it answers.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { testDialects } from '../helpers/test-databases.ts';
import {
  PASSWORD,
  errorCodes,
  errorPointers,
  issueKey,
  keyRow,
  signUp,
  startAuthSuite,
  uniqueEmail,
  type AuthSuite,
} from './auth-fixtures.ts';

for (const dialect of testDialects()) {
  describe(`POST /token on ${dialect}`, () => {
    let suite: AuthSuite;
    let email: string;

    before(async () => {
      // Fixed defaults, so "tighten only" has a known bound whatever the shared test config says.
      suite = await startAuthSuite(dialect, {
        apiKeys: { rateLimit: { enabled: true, max: 1000, timeWindow: 60000 } },
      });
      email = uniqueEmail();
      await signUp(suite.t, email);
    });
    after(() => suite.close());

    it('issues a key for a signed-up user: 201 with the flat answer docs/authentication.md shows', async () => {
      const response = await suite.t.inject({
        method: 'POST',
        url: '/token',
        payload: {
          email,
          password: PASSWORD,
          name: 'ci',
          metadata: { team: 'a' },
          expiresIn: 3600,
          permissions: { posts: { read: ['title'] } },
        },
      });
      assert.equal(response.statusCode, 201);
      assert.match(String(response.headers['content-type']), /^application\/json/);
      assert.equal(response.headers['cache-control'], 'no-store');
      const body = response.json();
      assert.deepEqual(Object.keys(body).sort(), ['expiresAt', 'id', 'key', 'name', 'permissions', 'prefix', 'start']);
      assert.equal(body.name, 'ci');
      assert.equal(body.prefix, 'svc_');
      assert.deepEqual(body.permissions, { posts: { read: ['title'] } });
      const expiresIn = Date.parse(body.expiresAt) - Date.now();
      assert.ok(expiresIn > 3500_000 && expiresIn <= 3600_000, `expiresAt about an hour away, got ${body.expiresAt}`);
    });

    it('makes keys of the form svc_ + 43 base64url characters, with start the first 10 characters', async () => {
      const issued = await issueKey(suite.t, { email, password: PASSWORD });
      assert.match(issued.key, /^svc_[A-Za-z0-9_-]{43}$/);
      assert.equal(issued.start, issued.key.slice(0, 10));
      assert.equal(issued.expiresAt, null);
      assert.equal(issued.permissions, null);
      assert.equal(issued.name, null);
    });

    it('stores only the SHA-256 of the key, never the key itself', async () => {
      const issued = await issueKey(suite.t, { email, password: PASSWORD });
      const row = await keyRow(suite.t.ctx, issued.id);
      assert.ok(row);
      assert.equal(row.key_hash, createHash('sha256').update(issued.key).digest('hex'));
      for (const [column, value] of Object.entries(row)) {
        assert.ok(!String(value).includes(issued.key.slice(4)), `column ${column} must not hold the secret`);
      }
      assert.equal(row.prefix, 'svc_');
      assert.equal(row.start, issued.start);
    });

    it('gives the same 401 INVALID_CREDENTIALS for a wrong password and an unknown email', async () => {
      const wrongPassword = await suite.t.inject({
        method: 'POST',
        url: '/token',
        payload: { email, password: 'not the password' },
      });
      const unknownEmail = await suite.t.inject({
        method: 'POST',
        url: '/token',
        payload: { email: uniqueEmail('nobody'), password: PASSWORD },
      });
      for (const response of [wrongPassword, unknownEmail]) {
        assert.equal(response.statusCode, 401);
        assert.deepEqual(errorCodes(response), ['INVALID_CREDENTIALS']);
      }
      assert.equal(wrongPassword.json().errors[0].detail, unknownEmail.json().errors[0].detail);
    });

    it('matches the email case-insensitively', async () => {
      const issued = await issueKey(suite.t, { email: email.toUpperCase(), password: PASSWORD });
      assert.match(issued.key, /^svc_/);
    });

    it('answers 400 INVALID_JSON for a body that is not JSON', async () => {
      const response = await suite.t.inject({
        method: 'POST',
        url: '/token',
        headers: { 'content-type': 'application/json' },
        payload: '{"email":',
      });
      assert.equal(response.statusCode, 400);
      assert.deepEqual(errorCodes(response), ['INVALID_JSON']);
    });

    const invalidBodies: { name: string; body: unknown; pointers: string[] }[] = [
      // An empty body asks for a key for the caller's session: 401 without one (token-session.test.ts).
      { name: 'a body that is an array', body: [1], pointers: ['/data'] },
      {
        name: 'non-string credentials',
        body: { email: 42, password: true },
        pointers: ['/data/attributes/email', '/data/attributes/password'],
      },
      {
        name: 'an unknown attribute',
        body: { email: 'a@b.c', password: 'x', role: 'admin' },
        pointers: ['/data/attributes/role'],
      },
      {
        name: 'expiresIn that is not a positive integer',
        body: { email: 'a@b.c', password: 'x', expiresIn: 0.5 },
        pointers: ['/data/attributes/expiresIn'],
      },
      {
        name: 'rateLimitMax above the default of 1000',
        body: { email: 'a@b.c', password: 'x', rateLimitMax: 1001 },
        pointers: ['/data/attributes/rateLimitMax'],
      },
      {
        name: 'a window shorter than the default',
        body: { email: 'a@b.c', password: 'x', rateLimitTimeWindow: 1000 },
        pointers: ['/data/attributes/rateLimitTimeWindow'],
      },
      {
        name: 'refillAmount without refillInterval',
        body: { email: 'a@b.c', password: 'x', refillAmount: 5 },
        pointers: ['/data/attributes/refillInterval'],
      },
      {
        name: 'a negative quota',
        body: { email: 'a@b.c', password: 'x', remaining: -1 },
        pointers: ['/data/attributes/remaining'],
      },
      {
        name: 'metadata that is not an object',
        body: { email: 'a@b.c', password: 'x', metadata: 'x' },
        pointers: ['/data/attributes/metadata'],
      },
      {
        name: 'members named after Object members',
        body: { email: 'a@b.c', password: 'x', constructor: 1, toString: 'x' },
        pointers: ['/data/attributes/constructor', '/data/attributes/toString'],
      },
      {
        name: 'a password without an email',
        body: { password: 'x' },
        pointers: ['/data/attributes/email'],
      },
      {
        name: 'a blank email',
        body: { email: '   ', password: 'x' },
        pointers: ['/data/attributes/email'],
      },
      {
        name: 'metadata over 8192 bytes of JSON',
        body: { email: 'a@b.c', password: 'x', metadata: { text: 'x'.repeat(8200) } },
        pointers: ['/data/attributes/metadata'],
      },
      {
        name: 'a name too long',
        body: { email: 'a@b.c', password: 'x', name: 'n'.repeat(256) },
        pointers: ['/data/attributes/name'],
      },
    ];
    for (const scenario of invalidBodies) {
      it(`answers 400 INVALID_RESOURCE_DATA with pointers for ${scenario.name}`, async () => {
        const response = await suite.t.inject({ method: 'POST', url: '/token', payload: scenario.body as object });
        assert.equal(response.statusCode, 400, response.body);
        assert.ok(errorCodes(response).every((code) => code === 'INVALID_RESOURCE_DATA'));
        assert.deepEqual(errorPointers(response).sort(), [...scenario.pointers].sort());
      });
    }

    it('accepts rate-limit fields that tighten the default', async () => {
      const issued = await issueKey(suite.t, {
        email,
        password: PASSWORD,
        rateLimitMax: 10,
        rateLimitTimeWindow: 120_000,
        remaining: 5,
      });
      const row = await keyRow(suite.t.ctx, issued.id);
      assert.equal(Number(row?.rate_limit_max), 10);
      assert.equal(Number(row?.rate_limit_time_window), 120_000);
      assert.equal(Number(row?.remaining), 5);
    });

    it('accepts a shorter window when it can never allow more than the default in any interval', async () => {
      // 3 per 2 s: at most 3 × ceil(60000 / 2000) = 90 requests in any 60 s, under the default's 1000.
      const issued = await issueKey(suite.t, { email, password: PASSWORD, rateLimitMax: 3, rateLimitTimeWindow: 2000 });
      const row = await keyRow(suite.t.ctx, issued.id);
      assert.equal(Number(row?.rate_limit_max), 3);
      assert.equal(Number(row?.rate_limit_time_window), 2000);
      // Exactly at the bound: 1000 per 60000 ms and 500 per 30000 ms.
      await issueKey(suite.t, { email, password: PASSWORD, rateLimitMax: 500, rateLimitTimeWindow: 30_000 });
    });

    it('refuses a window whose requests add up to more than the default, stating the rule with the numbers', async () => {
      const response = await suite.t.inject({
        method: 'POST',
        url: '/token',
        payload: { email, password: PASSWORD, rateLimitMax: 50, rateLimitTimeWindow: 2000 },
      });
      assert.equal(response.statusCode, 400, response.body);
      assert.deepEqual(errorCodes(response), ['INVALID_RESOURCE_DATA']);
      assert.deepEqual(errorPointers(response), ['/data/attributes/rateLimitTimeWindow']);
      const detail = String(response.json().errors[0].detail);
      assert.match(detail, /1000 requests per 60000 ms/);
      assert.match(detail, /50 per 2000 ms allows 50 × 30 = 1500 requests in 60000 ms/);
    });

    const invalidPermissions: { name: string; permissions: unknown; pointer: string }[] = [
      { name: 'an array', permissions: ['posts'], pointer: '/data/attributes/permissions' },
      {
        name: 'an unknown resource',
        permissions: { nope: { read: [] } },
        pointer: '/data/attributes/permissions/nope',
      },
      {
        name: 'an unknown action',
        permissions: { posts: { publish: [] } },
        pointer: '/data/attributes/permissions/posts/publish',
      },
      {
        name: 'fields that are not an array',
        permissions: { posts: { read: 'title' } },
        pointer: '/data/attributes/permissions/posts/read',
      },
      {
        name: 'an unknown field',
        permissions: { posts: { read: ['title', 'nope'] } },
        pointer: '/data/attributes/permissions/posts/read/1',
      },
      {
        name: 'a resource entry that is not an object',
        permissions: { posts: true },
        pointer: '/data/attributes/permissions/posts',
      },
    ];
    for (const scenario of invalidPermissions) {
      it(`answers 400 INVALID_PERMISSIONS for permissions with ${scenario.name}`, async () => {
        const response = await suite.t.inject({
          method: 'POST',
          url: '/token',
          payload: { email, password: PASSWORD, permissions: scenario.permissions },
        });
        assert.equal(response.statusCode, 400, response.body);
        assert.deepEqual(errorCodes(response), ['INVALID_PERMISSIONS']);
        assert.deepEqual(errorPointers(response), [scenario.pointer]);
      });
    }

    it('accepts "*" and system fields in permissions', async () => {
      const issued = await issueKey(suite.t, {
        email,
        password: PASSWORD,
        permissions: { posts: { read: ['*'], update: ['id', 'title'], delete: [] } },
      });
      assert.deepEqual(issued.permissions, { posts: { read: ['*'], update: ['id', 'title'], delete: [] } });
    });

    it('does not let sign-up choose its own role', async () => {
      const sneaky = uniqueEmail('sneaky');
      const user = await signUp(suite.t, sneaky, PASSWORD, { primaryRole: 'editor', allowedRoles: '["editor"]' });
      const stored = await suite.t.ctx.auth.users.get(user.id);
      assert.equal(stored?.primaryRole, 'user');
      assert.equal(stored?.allowedRoles, '[]');
    });
  });
}

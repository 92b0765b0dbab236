// POST /token for a signed-in session instead of an email and password: the session token as a
// bearer token, or the session cookie from a trusted origin; and auth.emailAndPassword.enabled off,
// where password sign-up, sign-in and /token answer 403 while sessions still get keys.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { testDialects } from '../helpers/test-databases.ts';
import {
  PASSWORD,
  bearer,
  errorCodes,
  errorPointers,
  signUp,
  startApp,
  startAuthSuite,
  uniqueEmail,
  type AuthSuite,
  type AuthTestApp,
} from './auth-fixtures.ts';

async function signIn(t: AuthTestApp, email: string): Promise<{ token: string; cookie: string }> {
  const response = await t.inject({
    method: 'POST',
    url: '/auth/sign-in/email',
    payload: { email, password: PASSWORD },
  });
  assert.equal(response.statusCode, 200, response.body);
  return {
    token: (response.json() as { token: string }).token,
    cookie: response.cookies.map((c) => `${c.name}=${c.value}`).join('; '),
  };
}

for (const dialect of testDialects()) {
  describe(`/token with a session on ${dialect}`, () => {
    let suite: AuthSuite;
    before(async () => {
      suite = await startAuthSuite(dialect);
    });
    after(() => suite.close());

    it('issues a key for the session bearer token, with the same optional fields', async () => {
      const email = uniqueEmail('session-bearer');
      const { id } = await signUp(suite.t, email);
      const { token } = await signIn(suite.t, email);
      const response = await suite.t.inject({
        method: 'POST',
        url: '/token',
        headers: bearer(token),
        payload: {
          name: 'from a session',
          expiresIn: 3600,
          permissions: { posts: { read: ['title'] } },
          rateLimitMax: 10,
          rateLimitTimeWindow: 60000,
        },
      });
      assert.equal(response.statusCode, 201, response.body);
      assert.equal(response.headers['cache-control'], 'no-store');
      const issued = response.json() as { key: string; name: string; expiresAt: string; permissions: unknown };
      assert.equal(issued.name, 'from a session');
      assert.deepEqual(issued.permissions, { posts: { read: ['title'] } });
      assert.ok(issued.expiresAt);
      const me = await suite.t.inject({ method: 'GET', url: '/me', headers: bearer(issued.key) });
      assert.equal(me.statusCode, 200);
      assert.equal((me.json() as { data: { id: string } }).data.id, id);
    });

    it('issues a key for the session cookie sent from a trusted origin only', async () => {
      const email = uniqueEmail('session-cookie');
      await signUp(suite.t, email);
      const { cookie } = await signIn(suite.t, email);
      const trusted = await suite.t.inject({
        method: 'POST',
        url: '/token',
        headers: { cookie, origin: 'http://localhost:5173' },
        payload: {},
      });
      assert.equal(trusted.statusCode, 201, trusted.body);
      for (const origin of ['https://evil.example', undefined]) {
        const refused = await suite.t.inject({
          method: 'POST',
          url: '/token',
          headers: { cookie, ...(origin ? { origin } : {}) },
          payload: {},
        });
        assert.equal(refused.statusCode, 403, `origin ${origin}`);
        assert.deepEqual(errorCodes(refused), ['FORBIDDEN']);
        assert.equal(
          (refused.json() as { errors: { source: { parameter: string } }[] }).errors[0]!.source.parameter,
          'Origin',
        );
      }
    });

    it('answers 401 without a credential, with a made-up, an API-key or a signed-out session token', async () => {
      const none = await suite.t.inject({ method: 'POST', url: '/token', payload: { name: 'x' } });
      assert.equal(none.statusCode, 401);
      assert.deepEqual(errorCodes(none), ['UNAUTHORIZED']);
      assert.deepEqual(errorPointers(none), ['/data/attributes/email']);
      for (const token of ['made-up-token', 'svc_' + 'a'.repeat(40), 'a.b']) {
        const response = await suite.t.inject({ method: 'POST', url: '/token', headers: bearer(token), payload: {} });
        assert.equal(response.statusCode, 401, token);
      }
      const basic = await suite.t.inject({
        method: 'POST',
        url: '/token',
        headers: { authorization: 'Basic abc' },
        payload: {},
      });
      assert.equal(basic.statusCode, 401);

      const email = uniqueEmail('signed-out');
      await signUp(suite.t, email);
      const { token } = await signIn(suite.t, email);
      assert.equal(
        (await suite.t.inject({ method: 'POST', url: '/auth/sign-out', headers: bearer(token), payload: {} }))
          .statusCode,
        200,
      );
      assert.equal(
        (await suite.t.inject({ method: 'POST', url: '/token', headers: bearer(token), payload: {} })).statusCode,
        401,
      );
    });

    it('still validates the fields, and wants both email and password or neither', async () => {
      const onlyEmail = await suite.t.inject({ method: 'POST', url: '/token', payload: { email: 'a@b.test' } });
      assert.equal(onlyEmail.statusCode, 400);
      assert.deepEqual(errorPointers(onlyEmail), ['/data/attributes/password']);
      const email = uniqueEmail('fields');
      await signUp(suite.t, email);
      const { token } = await signIn(suite.t, email);
      const bad = await suite.t.inject({
        method: 'POST',
        url: '/token',
        headers: bearer(token),
        payload: { expiresIn: -1, unknown: 1 },
      });
      assert.equal(bad.statusCode, 400);
      const withKey = await suite.t.inject({
        method: 'POST',
        url: '/token',
        headers: { ...bearer(token), 'idempotency-key': 'k-1' },
        payload: {},
      });
      assert.equal(withKey.statusCode, 400);
      assert.deepEqual(errorCodes(withKey), ['INVALID_IDEMPOTENCY_KEY']);
    });
  });

  describe(`auth.emailAndPassword.enabled off on ${dialect}`, () => {
    let suite: AuthSuite;
    let off: AuthTestApp;
    let sessionToken: string;
    before(async () => {
      suite = await startAuthSuite(dialect);
      // A session opened while password sign-in was on stands for one a social or OIDC sign-in opens.
      const email = uniqueEmail('before-off');
      await signUp(suite.t, email);
      sessionToken = (await signIn(suite.t, email)).token;
      off = await startApp({ ...suite.config, auth: { ...suite.config.auth, emailAndPassword: { enabled: false } } });
    });
    after(async () => {
      await off.close();
      await suite.close();
    });

    it('answers 403 EMAIL_PASSWORD_DISABLED to password sign-up, sign-in, reset and /token', async () => {
      const email = uniqueEmail('off');
      const calls = [
        { url: '/auth/sign-up/email', payload: { name: 'x', email, password: PASSWORD } },
        { url: '/auth/sign-in/email', payload: { email, password: PASSWORD } },
        { url: '/auth/request-password-reset', payload: { email } },
        { url: '/auth/reset-password', payload: { token: 'x', newPassword: PASSWORD } },
        { url: '/token', payload: { email, password: PASSWORD } },
      ];
      for (const call of calls) {
        const response = await off.inject({ method: 'POST', ...call });
        assert.equal(response.statusCode, 403, `${call.url}: ${response.body}`);
        assert.deepEqual(errorCodes(response), ['EMAIL_PASSWORD_DISABLED']);
      }
    });

    it('still issues keys for a session', async () => {
      const response = await off.inject({
        method: 'POST',
        url: '/token',
        headers: bearer(sessionToken),
        payload: { name: 'social key' },
      });
      assert.equal(response.statusCode, 201, response.body);
    });
  });
}

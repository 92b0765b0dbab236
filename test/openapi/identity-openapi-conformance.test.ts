// The identity part of /openapi.json is true: `/token` and every identity endpoint a user calls (sign-up,
// sign-in, session, sign-out, email verification, social sign-in) are called on a real app, and each
// answer's status, media type and body must be what the document declares for that operation.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { InjectOptions } from 'fastify';
import { testDialects } from '../helpers/test-databases.ts';
import { PASSWORD, startAuthSuite, uniqueEmail, type AuthSuite } from '../auth/auth-fixtures.ts';
import { ResponseConformance } from './response-conformance.ts';

type Json = Record<string, unknown>;

/** An origin the test config trusts (auth.trustedOrigins), as a browser app there would send it. */
const TRUSTED = 'http://localhost:5173';
const FORM = 'application/x-www-form-urlencoded';

for (const dialect of testDialects()) {
  describe(`/token and the identity endpoints answer as /openapi.json describes them (${dialect})`, () => {
    let suite: AuthSuite;
    let spec: ResponseConformance;
    before(async () => {
      suite = await startAuthSuite(dialect, {
        auth: {
          basePath: '/auth',
          requireEmailVerification: false,
          defaultRole: 'user',
          social: { github: { clientId: 'github-client', clientSecret: 'github-secret' } },
          email: { from: 'svc <no-reply@localhost>' },
          trustedOrigins: [TRUSTED],
        },
      });
      const served = await suite.t.inject({ method: 'GET', url: '/openapi.json' });
      assert.equal(served.statusCode, 200);
      spec = new ResponseConformance(served.json<Json>());
    });
    after(() => suite.close());

    async function call(template: string, options: InjectOptions & { method: 'GET' | 'POST' }) {
      const response = await suite.t.inject(options);
      return { response, body: spec.check(options.method, template, response) as Json | null | undefined };
    }
    const post = (template: string, payload: unknown, headers: Record<string, string> = {}) =>
      call(template, {
        method: 'POST',
        url: template,
        headers,
        ...(typeof payload === 'string' ? { payload } : { payload: payload as Json }),
      });
    const cookieOf = (setCookie: string | string[] | undefined): string => {
      const first = (Array.isArray(setCookie) ? setCookie : [String(setCookie)]).find((c) =>
        c.startsWith('svc.session_token='),
      );
      assert.ok(first, 'a session cookie was set');
      return first.split(';')[0]!;
    };

    it('sign-up: JSON and form bodies, a taken email, invalid input, refused origins and bodies', async () => {
      const email = uniqueEmail('signup');
      const created = await post('/auth/sign-up/email', { name: 'Ada', email, password: PASSWORD });
      assert.equal(created.response.statusCode, 200);
      assert.equal(((created.body as Json).user as Json).primaryRole, 'user');
      assert.equal(typeof (created.body as Json).token, 'string');

      const form = `name=Grace&email=${encodeURIComponent(uniqueEmail('form'))}&password=${encodeURIComponent(PASSWORD)}`;
      assert.equal((await post('/auth/sign-up/email', form, { 'content-type': FORM })).response.statusCode, 200);
      assert.equal(
        (await post('/auth/sign-up/email', { name: 'Ada', email, password: PASSWORD })).response.statusCode,
        422,
      );
      assert.equal(
        (await post('/auth/sign-up/email', { name: 'Ada', email: 'not an email', password: PASSWORD })).response
          .statusCode,
        400,
      );
      assert.equal(
        (await post('/auth/sign-up/email', { name: 'Ada', email: uniqueEmail(), password: 'short' })).response
          .statusCode,
        400,
      );
      assert.equal(
        (await post('/auth/sign-up/email', '{"name":', { 'content-type': 'application/json' })).response.statusCode,
        400,
      );
      assert.equal(
        (await post('/auth/sign-up/email', 'name=Ada%00', { 'content-type': FORM })).response.statusCode,
        400,
      );
      assert.equal(
        (await post('/auth/sign-up/email', 'hello', { 'content-type': 'text/plain' })).response.statusCode,
        415,
      );
      const evil = await post(
        '/auth/sign-up/email',
        { name: 'Ada', email: uniqueEmail(), password: PASSWORD },
        { origin: 'https://evil.example' },
      );
      assert.equal(evil.response.statusCode, 403);
    });

    it('sign-in, the session, sign-out', async () => {
      const email = uniqueEmail('signin');
      await post('/auth/sign-up/email', { name: 'Ada', email, password: PASSWORD });
      const signedIn = await post('/auth/sign-in/email', { email, password: PASSWORD, callbackURL: '/console' });
      assert.equal(signedIn.response.statusCode, 200);
      assert.equal((signedIn.body as Json).url, '/console');
      const cookie = cookieOf(signedIn.response.headers['set-cookie']);
      assert.equal((await post('/auth/sign-in/email', { email, password: 'wrong password' })).response.statusCode, 401);
      assert.equal(
        (await post('/auth/sign-in/email', { email, password: PASSWORD, callbackURL: 'https://evil.example/' }))
          .response.statusCode,
        403,
      );
      assert.equal((await post('/auth/sign-in/email', { email })).response.statusCode, 400);

      const session = await call('/auth/get-session', { method: 'GET', url: '/auth/get-session', headers: { cookie } });
      assert.equal(session.response.statusCode, 200);
      assert.equal(((session.body as Json).user as Json).email, email);
      const none = await call('/auth/get-session', { method: 'GET', url: '/auth/get-session' });
      assert.equal(none.body, null);
      assert.equal(
        (await call('/auth/get-session', { method: 'GET', url: '/auth/get-session?x=%00' })).response.statusCode,
        400,
      );

      // Cookies without a trusted origin could be a forged cross-site request.
      assert.equal((await post('/auth/sign-out', {}, { cookie })).response.statusCode, 403);
      const out = await post('/auth/sign-out', {}, { cookie, origin: TRUSTED });
      assert.equal(out.response.statusCode, 200);
      const after = await call('/auth/get-session', { method: 'GET', url: '/auth/get-session', headers: { cookie } });
      assert.equal(after.body, null, 'the session is gone');
    });

    it('email verification: asking for a link and following it, with and without a callbackURL', async () => {
      const email = uniqueEmail('verify');
      await post('/auth/sign-up/email', { name: 'Ada', email, password: PASSWORD });
      const sent = await post('/auth/send-verification-email', { email });
      assert.equal(sent.response.statusCode, 200);
      assert.equal((await post('/auth/send-verification-email', {})).response.statusCode, 400);
      // No SMTP server in this config: the link is logged.
      const line = suite.t.logs.find((l) => l.to === email && typeof l.url === 'string');
      assert.ok(line, 'the verification link was logged');
      const link = new URL(String(line.url));
      const token = link.searchParams.get('token')!;

      const verify = (query: string) =>
        call('/auth/verify-email', { method: 'GET', url: `/auth/verify-email${query}` });
      assert.equal((await verify('')).response.statusCode, 400);
      assert.equal((await verify('?token=not-a-token')).response.statusCode, 401);
      const failed = await verify('?token=not-a-token&callbackURL=/console');
      assert.equal(failed.response.statusCode, 302);
      assert.match(String(failed.response.headers.location), /error=INVALID_TOKEN/);
      const verified = await verify(`?token=${encodeURIComponent(token)}`);
      assert.equal(verified.response.statusCode, 200);
      cookieOf(verified.response.headers['set-cookie']);
      const again = await verify(`?token=${encodeURIComponent(token)}&callbackURL=/console`);
      assert.equal(again.response.statusCode, 302);
      assert.equal(again.response.headers.location, '/console');
    });

    it('social sign-in: the provider page, an unknown provider, and a callback with a wrong state', async () => {
      const started = await post('/auth/sign-in/social', { provider: 'github', callbackURL: '/console' });
      assert.equal(started.response.statusCode, 200);
      assert.match(String((started.body as Json).url), /^https:\/\/github\.com\/login\/oauth\/authorize\?/);
      assert.equal((await post('/auth/sign-in/social', { provider: 'google' })).response.statusCode, 404);
      assert.equal((await post('/auth/sign-in/social', {})).response.statusCode, 400);
      const callback = await call('/auth/callback/{provider}', {
        method: 'GET',
        url: '/auth/callback/github?code=abc&state=forged',
      });
      assert.equal(callback.response.statusCode, 302);
      assert.match(String(callback.response.headers.location), /error=/);
    });

    it('/token: a key, each kind of refusal, and the login throttle shared with sign-in', async () => {
      const email = uniqueEmail('token');
      await post('/auth/sign-up/email', { name: 'Ada', email, password: PASSWORD });
      const issued = await post('/token', {
        email,
        password: PASSWORD,
        name: 'ci',
        expiresIn: 3600,
        permissions: { posts: { read: ['title'] } },
      });
      assert.equal(issued.response.statusCode, 201);
      assert.equal(issued.response.headers['cache-control'], 'no-store');
      assert.match(String((issued.body as Json).key), /^svc_/);
      assert.equal((await post('/token', { email, password: PASSWORD, role: 'admin' })).response.statusCode, 400);
      assert.equal(
        (await post('/token', { email, password: PASSWORD, permissions: { nowhere: { read: ['*'] } } })).response
          .statusCode,
        400,
      );
      assert.equal(
        (await post('/token', '{"email":', { 'content-type': 'application/json' })).response.statusCode,
        400,
      );
      assert.equal((await post('/token', 'email=x', { 'content-type': 'text/plain' })).response.statusCode, 415);
      assert.equal(
        (await post('/token', { email, password: PASSWORD, metadata: { blob: 'x'.repeat(1_100_000) } })).response
          .statusCode,
        413,
      );

      const guessed = uniqueEmail('guessed');
      await post('/auth/sign-up/email', { name: 'Ada', email: guessed, password: PASSWORD });
      let last = 0;
      // Past the account's limit (10 failures by default), even the right password is refused for a while.
      for (let attempt = 0; attempt < 11; attempt++)
        last = (await post('/token', { email: guessed, password: 'wrong password' })).response.statusCode;
      assert.equal(last, 429);
      assert.equal(
        (await post('/auth/sign-in/email', { email: guessed, password: PASSWORD })).response.statusCode,
        429,
      );
      assert.equal((await post('/token', { email: guessed, password: PASSWORD })).response.statusCode, 429);
    });

    it('exercised the success answer of every identity operation and /token', () => {
      const operations = [
        'POST /token 201',
        'POST /auth/sign-up/email 200',
        'POST /auth/sign-in/email 200',
        'GET /auth/get-session 200',
        'POST /auth/sign-out 200',
        'POST /auth/send-verification-email 200',
        'GET /auth/verify-email 200',
        'GET /auth/verify-email 302',
        'POST /auth/sign-in/social 200',
        'GET /auth/callback/{provider} 302',
      ];
      for (const operation of operations) assert.ok(spec.seen.has(operation), operation);
    });
  });
}

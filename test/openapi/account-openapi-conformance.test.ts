// The account part of /openapi.json is true: password reset, password and email change, account
// deletion, the user's sessions and /token with a session are called on a real app, and each answer's
// status, media type and body must be what the document declares for that operation.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { InjectOptions } from 'fastify';
import { testDialects } from '../helpers/test-databases.ts';
import { PASSWORD, signUp, startAuthSuite, uniqueEmail, type AuthSuite } from '../auth/auth-fixtures.ts';
import { ResponseConformance } from './response-conformance.ts';

type Json = Record<string, unknown>;

for (const dialect of testDialects()) {
  describe(`the account endpoints answer as /openapi.json describes them (${dialect})`, () => {
    let suite: AuthSuite;
    let spec: ResponseConformance;
    before(async () => {
      suite = await startAuthSuite(dialect);
      spec = new ResponseConformance((await suite.t.inject({ method: 'GET', url: '/openapi.json' })).json<Json>());
    });
    after(() => suite.close());

    async function call(template: string, options: InjectOptions & { method: 'GET' | 'POST' }) {
      const response = await suite.t.inject(options);
      return { response, body: spec.check(options.method, template, response) as Json | Json[] | null | undefined };
    }
    const post = (url: string, payload: Json, headers: Record<string, string> = {}, template = url) =>
      call(template, { method: 'POST', url, headers, payload });
    async function signedIn(): Promise<{ email: string; auth: Record<string, string> }> {
      const email = uniqueEmail('doc');
      await signUp(suite.t, email);
      const signIn = await suite.t.inject({
        method: 'POST',
        url: '/auth/sign-in/email',
        payload: { email, password: PASSWORD },
      });
      return { email, auth: { authorization: `Bearer ${(signIn.json() as { token: string }).token}` } };
    }

    it('password reset: request, the link, the reset, and its failures', async () => {
      const { email } = await signedIn();
      assert.equal((await post('/auth/request-password-reset', { email })).response.statusCode, 200);
      assert.equal((await post('/auth/request-password-reset', { email: 'not an email' })).response.statusCode, 400);
      assert.equal(
        (await post('/auth/request-password-reset', { email, redirectTo: 'https://evil.example/' })).response
          .statusCode,
        403,
      );
      const logged = await waitForLog(suite, email);
      const link = new URL(logged);
      const token = link.pathname.split('/').at(-1)!;
      const opened = await call('/auth/reset-password/{token}', { method: 'GET', url: link.pathname + link.search });
      assert.equal(opened.response.statusCode, 302);
      assert.equal(
        (await post('/auth/reset-password', { token: 'wrong', newPassword: 'a new password' })).response.statusCode,
        400,
      );
      assert.equal(
        (await post('/auth/reset-password', { token, newPassword: 'a new password' })).response.statusCode,
        200,
      );
    });

    it('password and email change, sessions, /token with a session', async () => {
      const { auth } = await signedIn();
      assert.equal(
        (
          await post(
            '/auth/change-password',
            { currentPassword: 'wrong password', newPassword: 'another password' },
            auth,
          )
        ).response.statusCode,
        400,
      );
      assert.equal(
        (await post('/auth/change-password', { currentPassword: PASSWORD, newPassword: 'another password' }, auth))
          .response.statusCode,
        200,
      );
      assert.equal(
        (await post('/auth/change-password', { currentPassword: PASSWORD, newPassword: 'x' })).response.statusCode,
        401,
      );
      assert.equal(
        (await post('/auth/change-email', { newEmail: uniqueEmail('next') }, auth)).response.statusCode,
        200,
      );
      assert.equal((await post('/auth/change-email', { newEmail: 'nope' }, auth)).response.statusCode, 400);

      const listed = await call('/auth/list-sessions', { method: 'GET', url: '/auth/list-sessions', headers: auth });
      assert.equal(listed.response.statusCode, 200);
      assert.equal(
        (await call('/auth/list-sessions', { method: 'GET', url: '/auth/list-sessions' })).response.statusCode,
        401,
      );
      assert.equal((await post('/auth/revoke-session', { token: 'not-mine' }, auth)).response.statusCode, 200);
      assert.equal((await post('/auth/revoke-other-sessions', {}, auth)).response.statusCode, 200);

      const issued = await post('/token', { name: 'mine' }, auth);
      assert.equal(issued.response.statusCode, 201);
      assert.equal((await post('/token', {})).response.statusCode, 401);
      assert.equal(
        (await post('/token', {}, { cookie: 'svc.session_token=x.y', origin: 'https://evil.example' })).response
          .statusCode,
        403,
      );
      assert.equal((await post('/auth/revoke-sessions', {}, auth)).response.statusCode, 200);
    });

    it('account deletion: a wrong password, a mailed link, and deletion', async () => {
      const first = await signedIn();
      assert.equal(
        (await post('/auth/delete-user', { password: 'wrong password' }, first.auth)).response.statusCode,
        400,
      );
      assert.equal((await post('/auth/delete-user', {}, first.auth)).response.statusCode, 200);
      const link = new URL(await waitForLog(suite, first.email, '/delete-user/callback'));
      const followed = await call('/auth/delete-user/callback', {
        method: 'GET',
        url: link.pathname + link.search,
        headers: first.auth,
      });
      assert.ok([200, 302].includes(followed.response.statusCode));
      const second = await signedIn();
      assert.equal((await post('/auth/delete-user', { password: PASSWORD }, second.auth)).response.statusCode, 200);
      assert.equal((await post('/auth/delete-user', { password: PASSWORD })).response.statusCode, 401);
    });
  });
}

/** The link logged for `to` (no SMTP server is configured); mails go out in the background. */
async function waitForLog(suite: AuthSuite, to: string, path = '/reset-password/'): Promise<string> {
  for (let i = 0; i < 200; i++) {
    const line = suite.t.logs.find((l) => l.to === to && typeof l.url === 'string' && l.url.includes(path));
    if (line) return String(line.url);
    await new Promise((resolve) => setImmediate(resolve));
  }
  throw new Error(`no ${path} link logged for ${to}`);
}

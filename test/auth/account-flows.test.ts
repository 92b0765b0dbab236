// Account management through better-auth's endpoints, with svc's rules on top: password reset by a
// mailed single-use link (same answer for unknown addresses, throttled, ends sessions, revokes keys
// and their streams), email change confirmed from the new address, account deletion (password, or a
// mailed link) that deletes keys and ends streams but keeps records, and listing and revoking sessions.
// Real SMTP receiver, real SSE socket, SQLite and PostgreSQL.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import type { LightMyRequestResponse } from 'fastify';
import { testDialects } from '../helpers/test-databases.ts';
import { linkIn, startSmtpReceiver, type SmtpReceiver } from '../helpers/smtp-receiver.ts';
import { SseClient } from '../helpers/sse-client.ts';
import { TEST_ADMIN_TOKEN, type ConfigOverrides } from '../helpers/test-config.ts';
import {
  PASSWORD,
  bearer,
  errorCodes,
  issueKey,
  signUp,
  startAuthSuite,
  uniqueEmail,
  type AuthSuite,
  type AuthTestApp,
} from './auth-fixtures.ts';

const NEW_PASSWORD = 'a brand new passphrase';

function accountAuth(smtpUrl: string, extra: Record<string, unknown> = {}): ConfigOverrides {
  return {
    auth: {
      basePath: '/auth',
      requireEmailVerification: false,
      defaultRole: 'user',
      social: {},
      email: { from: 'svc <no-reply@localhost>', smtpUrl },
      trustedOrigins: ['http://localhost:5173'],
      ...extra,
    },
  } as ConfigOverrides;
}

/** Signs in by email; answers the session token (as better-auth issues it) and the cookie header. */
async function signIn(t: AuthTestApp, email: string, password = PASSWORD): Promise<{ token: string; cookie: string }> {
  const response = await t.inject({ method: 'POST', url: '/auth/sign-in/email', payload: { email, password } });
  assert.equal(response.statusCode, 200, response.body);
  const token = (response.json() as { token: string }).token;
  const cookie = response.cookies.map((c) => `${c.name}=${c.value}`).join('; ');
  return { token, cookie };
}

async function sessionOf(t: AuthTestApp, token: string): Promise<unknown> {
  const response = await t.inject({ method: 'GET', url: '/auth/get-session', headers: bearer(token) });
  assert.equal(response.statusCode, 200, response.body);
  return response.json();
}

async function sessionUser(t: AuthTestApp, token: string): Promise<{ id: string }> {
  return ((await sessionOf(t, token)) as { user: { id: string } }).user;
}

async function meStatus(t: AuthTestApp, key: string): Promise<number> {
  return (await t.inject({ method: 'GET', url: '/me', headers: bearer(key) })).statusCode;
}

async function listen(t: AuthTestApp): Promise<string> {
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  return `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
}

async function openStream(baseUrl: string, key: string): Promise<SseClient> {
  const client = await SseClient.connect(`${baseUrl}/v1/posts/stream`, { headers: bearer(key) });
  assert.equal(client.status, 200);
  await client.waitFor((b) => b.comments.includes('connected'), { what: 'the connected comment' });
  return client;
}

function body(response: LightMyRequestResponse): unknown {
  return response.body.length > 0 ? response.json() : null;
}

for (const dialect of testDialects()) {
  describe(`password reset on ${dialect}`, () => {
    let smtp: SmtpReceiver;
    let suite: AuthSuite;
    let baseUrl: string;
    before(async () => {
      smtp = await startSmtpReceiver();
      suite = await startAuthSuite(dialect, accountAuth(smtp.url));
      baseUrl = await listen(suite.t);
    });
    after(async () => {
      await suite.close();
      await smtp.close();
    });

    it('answers alike for known and unknown addresses, and mails only the known one', async () => {
      const email = uniqueEmail('reset-known');
      await signUp(suite.t, email);
      const unknown = uniqueEmail('reset-unknown');
      const known = await suite.t.inject({ method: 'POST', url: '/auth/request-password-reset', payload: { email } });
      const missing = await suite.t.inject({
        method: 'POST',
        url: '/auth/request-password-reset',
        payload: { email: unknown },
      });
      assert.equal(known.statusCode, 200);
      assert.equal(missing.statusCode, 200);
      assert.deepEqual(body(known), body(missing));
      await smtp.waitFor(email, /Reset your password/);
      // The known address's mail has arrived; one for the unknown address was never started.
      assert.equal(smtp.mails.filter((m) => m.to.includes(unknown)).length, 0);
    });

    it('resets once with the mailed link, ends every session, revokes keys and ends their streams', async () => {
      const email = uniqueEmail('reset');
      await signUp(suite.t, email);
      const session = await signIn(suite.t, email);
      const { key } = await issueKey(suite.t, { email, password: PASSWORD });
      const stream = await openStream(baseUrl, key);

      assert.equal(
        (await suite.t.inject({ method: 'POST', url: '/auth/request-password-reset', payload: { email } })).statusCode,
        200,
      );
      const mail = await smtp.waitFor(email, /Reset your password/);
      const link = linkIn(mail, '/auth/reset-password/');
      // With no redirectTo the link lands on the console's reset page, carrying the token.
      const landing = await suite.t.inject({ method: 'GET', url: link.pathname + link.search });
      assert.equal(landing.statusCode, 302);
      const target = new URL(String(landing.headers.location));
      assert.equal(target.pathname, '/console/');
      assert.equal(target.hash, '#/reset-password');
      const token = target.searchParams.get('token');
      assert.ok(token);

      const reset = await suite.t.inject({
        method: 'POST',
        url: '/auth/reset-password',
        payload: { token, newPassword: NEW_PASSWORD },
      });
      assert.equal(reset.statusCode, 200, reset.body);
      assert.equal(await sessionOf(suite.t, session.token), null, 'the old session ended');
      assert.equal(await meStatus(suite.t, key), 401, 'the key was revoked');
      const ended = await stream.waitFor((b) => b.event === 'revoked', { what: 'the revoked event' });
      assert.ok(ended);
      await stream.ended;

      const again = await suite.t.inject({
        method: 'POST',
        url: '/auth/reset-password',
        payload: { token, newPassword: 'yet another password' },
      });
      assert.equal(again.statusCode, 400, 'the link works once');
      assert.equal(
        (await suite.t.inject({ method: 'POST', url: '/auth/sign-in/email', payload: { email, password: PASSWORD } }))
          .statusCode,
        401,
      );
      await signIn(suite.t, email, NEW_PASSWORD);
    });

    it('refuses a made-up token and a too-short password without a 500', async () => {
      const bad = await suite.t.inject({
        method: 'POST',
        url: '/auth/reset-password',
        payload: { token: 'not-a-token', newPassword: NEW_PASSWORD },
      });
      assert.equal(bad.statusCode, 400);
      const short = await suite.t.inject({
        method: 'POST',
        url: '/auth/reset-password',
        payload: { token: 'x', newPassword: 'a' },
      });
      assert.equal(short.statusCode, 400);
    });
  });

  describe(`password reset keeping keys, throttled, on ${dialect}`, () => {
    let smtp: SmtpReceiver;
    let suite: AuthSuite;
    before(async () => {
      smtp = await startSmtpReceiver();
      suite = await startAuthSuite(
        dialect,
        accountAuth(smtp.url, {
          passwordReset: { revokeKeys: false },
          loginThrottle: { maxFailuresPerAccount: 2, maxFailuresPerAddress: 50 },
        }),
      );
    });
    after(async () => {
      await suite.close();
      await smtp.close();
    });

    it('keeps the keys when auth.passwordReset.revokeKeys is false (sessions still end)', async () => {
      const email = uniqueEmail('keep');
      await signUp(suite.t, email);
      const session = await signIn(suite.t, email);
      const { key } = await issueKey(suite.t, { email, password: PASSWORD });
      await suite.t.inject({ method: 'POST', url: '/auth/request-password-reset', payload: { email } });
      const link = linkIn(await smtp.waitFor(email), '/auth/reset-password/');
      const token = link.pathname.split('/').at(-1);
      const reset = await suite.t.inject({
        method: 'POST',
        url: '/auth/reset-password',
        payload: { token, newPassword: NEW_PASSWORD },
      });
      assert.equal(reset.statusCode, 200, reset.body);
      assert.equal(await sessionOf(suite.t, session.token), null);
      assert.equal(await meStatus(suite.t, key), 200);
    });

    it('limits reset mails per account with the login throttle, without locking sign-in', async () => {
      const email = uniqueEmail('flood');
      await signUp(suite.t, email);
      for (let i = 0; i < 2; i++) {
        assert.equal(
          (await suite.t.inject({ method: 'POST', url: '/auth/request-password-reset', payload: { email } }))
            .statusCode,
          200,
        );
      }
      const third = await suite.t.inject({ method: 'POST', url: '/auth/request-password-reset', payload: { email } });
      assert.equal(third.statusCode, 429);
      assert.deepEqual(errorCodes(third), ['RATE_LIMITED']);
      assert.ok(third.headers['retry-after']);
      // An unknown address is limited the same way: the 429 tells nothing about the account.
      const ghost = uniqueEmail('ghost');
      for (let i = 0; i < 2; i++)
        await suite.t.inject({ method: 'POST', url: '/auth/request-password-reset', payload: { email: ghost } });
      assert.equal(
        (await suite.t.inject({ method: 'POST', url: '/auth/request-password-reset', payload: { email: ghost } }))
          .statusCode,
        429,
      );
      await signIn(suite.t, email);
    });

    it('counts wrong current passwords (change-password, delete-user) as failed sign-ins', async () => {
      const email = uniqueEmail('guess');
      await signUp(suite.t, email);
      const { token } = await signIn(suite.t, email);
      const wrongChange = await suite.t.inject({
        method: 'POST',
        url: '/auth/change-password',
        headers: bearer(token),
        payload: { currentPassword: 'guess one!', newPassword: NEW_PASSWORD },
      });
      assert.equal(wrongChange.statusCode, 400);
      const wrongDelete = await suite.t.inject({
        method: 'POST',
        url: '/auth/delete-user',
        headers: bearer(token),
        payload: { password: 'guess two!' },
      });
      assert.equal(wrongDelete.statusCode, 400);
      // The account's two failures are used up: even the right password waits for the window.
      const third = await suite.t.inject({
        method: 'POST',
        url: '/auth/delete-user',
        headers: bearer(token),
        payload: { password: PASSWORD },
      });
      assert.equal(third.statusCode, 429);
      assert.equal(
        (await suite.t.inject({ method: 'POST', url: '/token', payload: { email, password: PASSWORD } })).statusCode,
        429,
      );
      assert.ok(await suite.t.ctx.auth.users.get((await sessionUser(suite.t, token)).id), 'nothing was deleted');
    });

    it('limits email-change links per user', async () => {
      const email = uniqueEmail('hopper');
      await signUp(suite.t, email);
      const { token } = await signIn(suite.t, email);
      for (let i = 0; i < 2; i++) {
        const sent = await suite.t.inject({
          method: 'POST',
          url: '/auth/change-email',
          headers: bearer(token),
          payload: { newEmail: uniqueEmail(`target${i}`) },
        });
        assert.equal(sent.statusCode, 200);
      }
      const third = await suite.t.inject({
        method: 'POST',
        url: '/auth/change-email',
        headers: bearer(token),
        payload: { newEmail: uniqueEmail('target') },
      });
      assert.equal(third.statusCode, 429);
      assert.deepEqual(errorCodes(third), ['RATE_LIMITED']);
    });
  });

  describe(`email change and account deletion on ${dialect}`, () => {
    let smtp: SmtpReceiver;
    let suite: AuthSuite;
    let baseUrl: string;
    before(async () => {
      smtp = await startSmtpReceiver();
      suite = await startAuthSuite(dialect, accountAuth(smtp.url));
      baseUrl = await listen(suite.t);
    });
    after(async () => {
      await suite.close();
      await smtp.close();
    });

    it('changes the email only once the link mailed to the new address is followed', async () => {
      const email = uniqueEmail('old');
      const newEmail = uniqueEmail('new');
      await signUp(suite.t, email);
      const session = await signIn(suite.t, email);
      const change = await suite.t.inject({
        method: 'POST',
        url: '/auth/change-email',
        headers: bearer(session.token),
        payload: { newEmail },
      });
      assert.equal(change.statusCode, 200, change.body);
      assert.equal(
        (await issueKey(suite.t, { email, password: PASSWORD })).key.startsWith('svc_'),
        true,
        'unchanged until confirmed',
      );
      const link = linkIn(await smtp.waitFor(newEmail), '/auth/verify-email');
      assert.equal(smtp.mails.filter((m) => m.to.includes(email)).length, 0, 'nothing went to the old address');
      const confirm = await suite.t.inject({
        method: 'GET',
        url: link.pathname + link.search,
        headers: bearer(session.token),
      });
      assert.ok([200, 302].includes(confirm.statusCode), `${confirm.statusCode} ${confirm.body}`);
      await issueKey(suite.t, { email: newEmail, password: PASSWORD });
      assert.equal(
        (await suite.t.inject({ method: 'POST', url: '/token', payload: { email, password: PASSWORD } })).statusCode,
        401,
      );
    });

    it('refuses an email change without a session', async () => {
      const response = await suite.t.inject({
        method: 'POST',
        url: '/auth/change-email',
        payload: { newEmail: uniqueEmail('anon') },
      });
      assert.equal(response.statusCode, 401);
    });

    it('deletes an account after the password: keys go, streams end, records stay', async () => {
      const email = uniqueEmail('delete');
      const { id: userId } = await signUp(suite.t, email);
      const session = await signIn(suite.t, email);
      const { key } = await issueKey(suite.t, { email, password: PASSWORD });
      const created = await suite.t.inject({
        method: 'POST',
        url: '/v1/posts',
        headers: { ...bearer(key), 'content-type': 'application/vnd.api+json' },
        payload: { data: { type: 'posts', attributes: { title: 'kept after deletion' } } },
      });
      assert.equal(created.statusCode, 201, created.body);
      const postId = (created.json() as { data: { id: string } }).data.id;
      const stream = await openStream(baseUrl, key);

      const wrong = await suite.t.inject({
        method: 'POST',
        url: '/auth/delete-user',
        headers: bearer(session.token),
        payload: { password: 'not my password' },
      });
      assert.equal(wrong.statusCode, 400);
      assert.equal(await meStatus(suite.t, key), 200);

      const done = await suite.t.inject({
        method: 'POST',
        url: '/auth/delete-user',
        headers: bearer(session.token),
        payload: { password: PASSWORD },
      });
      assert.equal(done.statusCode, 200, done.body);
      assert.equal(await meStatus(suite.t, key), 401);
      await stream.waitFor((b) => b.event === 'revoked', { what: 'the revoked event' });
      await stream.ended;
      const admin = { authorization: `Bearer ${TEST_ADMIN_TOKEN}` };
      assert.equal(
        (await suite.t.inject({ method: 'GET', url: `/admin/users/${userId}`, headers: admin })).statusCode,
        404,
      );
      const post = await suite.t.inject({ method: 'GET', url: `/v1/posts/${postId}`, headers: admin });
      assert.equal(post.statusCode, 200, 'the records the user wrote stay');
      assert.equal((post.json() as { data: { attributes: { author_id: string } } }).data.attributes.author_id, userId);
    });

    it("never deletes a fresh session's account for an empty password or token, nor a made-up token", async () => {
      const email = uniqueEmail('fresh');
      await signUp(suite.t, email);
      const session = await signIn(suite.t, email);
      const { key } = await issueKey(suite.t, { email, password: PASSWORD });
      for (const payload of [{ password: '' }, { token: '' }, { password: '', token: '' }, { token: 'made-up' }]) {
        const response = await suite.t.inject({
          method: 'POST',
          url: '/auth/delete-user',
          headers: bearer(session.token),
          payload,
        });
        assert.ok(response.statusCode < 500, response.body);
        assert.equal(await meStatus(suite.t, key), 200, `still there after ${JSON.stringify(payload)}`);
      }
      const form = await suite.t.inject({
        method: 'POST',
        url: '/auth/delete-user',
        headers: { ...bearer(session.token), 'content-type': 'application/x-www-form-urlencoded' },
        payload: 'password=',
      });
      assert.ok(form.statusCode < 500);
      assert.equal(await meStatus(suite.t, key), 200);
    });

    it('without the password mails a link; following it (signed in) deletes the account', async () => {
      const email = uniqueEmail('linkdelete');
      await signUp(suite.t, email);
      const session = await signIn(suite.t, email);
      const { key } = await issueKey(suite.t, { email, password: PASSWORD });
      const asked = await suite.t.inject({
        method: 'POST',
        url: '/auth/delete-user',
        headers: bearer(session.token),
        payload: {},
      });
      assert.equal(asked.statusCode, 200, asked.body);
      assert.equal(await meStatus(suite.t, key), 200, 'nothing is deleted before the link is followed');
      const link = linkIn(await smtp.waitFor(email, /Confirm deleting your account/), '/auth/delete-user/callback');
      const followed = await suite.t.inject({
        method: 'GET',
        url: link.pathname + link.search,
        headers: bearer(session.token),
      });
      assert.ok([200, 302].includes(followed.statusCode), `${followed.statusCode} ${followed.body}`);
      assert.equal(await meStatus(suite.t, key), 401);
    });
  });

  describe(`sessions on ${dialect}`, () => {
    let suite: AuthSuite;
    before(async () => {
      suite = await startAuthSuite(dialect);
    });
    after(() => suite.close());

    it("lists the user's sessions and revokes one; a revoked session cannot mint keys", async () => {
      const email = uniqueEmail('sessions');
      await signUp(suite.t, email);
      const first = await signIn(suite.t, email);
      const second = await signIn(suite.t, email);
      const list = await suite.t.inject({ method: 'GET', url: '/auth/list-sessions', headers: bearer(first.token) });
      assert.equal(list.statusCode, 200, list.body);
      const sessions = list.json() as { token: string }[];
      assert.ok(sessions.some((s) => s.token === second.token));
      assert.ok(sessions.length >= 3, 'sign-up opened one too');

      const revoke = await suite.t.inject({
        method: 'POST',
        url: '/auth/revoke-session',
        headers: bearer(first.token),
        payload: { token: second.token },
      });
      assert.equal(revoke.statusCode, 200, revoke.body);
      assert.equal(await sessionOf(suite.t, second.token), null);
      const refused = await suite.t.inject({
        method: 'POST',
        url: '/token',
        headers: bearer(second.token),
        payload: {},
      });
      assert.equal(refused.statusCode, 401);

      const others = await suite.t.inject({
        method: 'POST',
        url: '/auth/revoke-other-sessions',
        headers: bearer(first.token),
        payload: {},
      });
      assert.equal(others.statusCode, 200);
      const left = (
        await suite.t.inject({ method: 'GET', url: '/auth/list-sessions', headers: bearer(first.token) })
      ).json() as unknown[];
      assert.equal(left.length, 1);
    });

    it("does not list another user's sessions nor revoke them", async () => {
      const alice = uniqueEmail('alice');
      const bob = uniqueEmail('bob');
      await signUp(suite.t, alice);
      await signUp(suite.t, bob);
      const a = await signIn(suite.t, alice);
      const b = await signIn(suite.t, bob);
      const listed = (
        await suite.t.inject({ method: 'GET', url: '/auth/list-sessions', headers: bearer(a.token) })
      ).json() as { token: string }[];
      assert.ok(!listed.some((s) => s.token === b.token));
      await suite.t.inject({
        method: 'POST',
        url: '/auth/revoke-session',
        headers: bearer(a.token),
        payload: { token: b.token },
      });
      assert.notEqual(await sessionOf(suite.t, b.token), null);
    });
  });
}

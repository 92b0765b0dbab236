// The admin API's user management for the console (issue #40): creating a user with a password or an
// invitation (a mailed link to choose one, through the reset flow), marking an email verified, sending
// a reset link, and finding users by part of their email or name, literally (LIKE wildcards are
// escaped). Real SMTP receiver; SQLite and PostgreSQL.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { testDialects } from '../helpers/test-databases.ts';
import { linkIn, startSmtpReceiver, type SmtpReceiver } from '../helpers/smtp-receiver.ts';
import { TEST_ADMIN_TOKEN, type ConfigOverrides } from '../helpers/test-config.ts';
import {
  PASSWORD,
  bearer,
  errorCodes,
  errorPointers,
  issueKey,
  startAuthSuite,
  type AuthSuite,
} from './auth-fixtures.ts';

const ADMIN = bearer(TEST_ADMIN_TOKEN);
const CHOSEN = 'a password chosen from the link';

function mailAuth(smtpUrl: string): ConfigOverrides {
  return {
    auth: {
      basePath: '/auth',
      requireEmailVerification: false,
      defaultRole: 'user',
      social: {},
      email: { from: 'svc <no-reply@localhost>', smtpUrl },
    },
  } as ConfigOverrides;
}

interface UserDoc {
  id: string;
  attributes: { email: string; name: string; emailVerified: boolean; primaryRole: string; allowedRoles: string };
}

for (const dialect of testDialects()) {
  describe(`admin user management (${dialect})`, () => {
    let smtp: SmtpReceiver;
    let suite: AuthSuite;
    const call = (options: InjectOptions): Promise<LightMyRequestResponse> => suite.t.inject(options);
    const create = (payload: Record<string, unknown>) =>
      call({ method: 'POST', url: '/admin/users', headers: ADMIN, payload });
    const signIn = (email: string, password: string) =>
      call({ method: 'POST', url: '/auth/sign-in/email', payload: { email, password } });
    /** Follows a mailed reset or invitation link to its token and sets `password` with it. */
    async function choosePassword(email: string, subject: RegExp, password: string): Promise<void> {
      const link = linkIn(await smtp.waitFor(email, subject), '/auth/reset-password/');
      const landing = await call({ method: 'GET', url: link.pathname + link.search });
      const token = new URL(String(landing.headers.location)).searchParams.get('token');
      assert.ok(token, landing.body);
      const reset = await call({
        method: 'POST',
        url: '/auth/reset-password',
        payload: { token, newPassword: password },
      });
      assert.equal(reset.statusCode, 200, reset.body);
    }

    before(async () => {
      smtp = await startSmtpReceiver();
      suite = await startAuthSuite(dialect, mailAuth(smtp.url));
    });
    after(async () => {
      await suite.close();
      await smtp.close();
    });

    it('creates a user with a password, roles and a verified address, who can then sign in and get a key', async () => {
      const response = await create({
        email: ' Ada@Example.test ',
        name: 'Ada Lovelace',
        password: PASSWORD,
        primaryRole: 'editor',
        allowedRoles: ['user'],
        emailVerified: true,
      });
      assert.equal(response.statusCode, 201, response.body);
      const body = response.json() as { data: UserDoc; meta: { invitationSent: boolean } };
      assert.equal(response.headers.location, `/admin/users/${body.data.id}`);
      assert.equal(body.meta.invitationSent, false);
      assert.equal(body.data.attributes.email, 'ada@example.test');
      assert.equal(body.data.attributes.name, 'Ada Lovelace');
      assert.equal(body.data.attributes.emailVerified, true);
      assert.equal(body.data.attributes.primaryRole, 'editor');
      assert.deepEqual(JSON.parse(body.data.attributes.allowedRoles), ['user']);
      assert.equal((await signIn('ada@example.test', PASSWORD)).statusCode, 200);
      const key = await issueKey(suite.t, { email: 'ada@example.test', password: PASSWORD });
      const me = (await call({ method: 'GET', url: '/me', headers: bearer(key.key) })).json() as {
        data: { attributes: { role: string } };
      };
      assert.equal(me.data.attributes.role, 'editor');
    });

    it('invites a user: no password until they choose one from the mailed link', async () => {
      const email = 'invited@example.test';
      const response = await create({ email, name: 'Invited', invite: true });
      assert.equal(response.statusCode, 201, response.body);
      assert.equal((response.json() as { meta: { invitationSent: boolean } }).meta.invitationSent, true);
      // No password yet: nothing to sign in with.
      assert.equal((await signIn(email, PASSWORD)).statusCode, 401);
      const mail = await smtp.waitFor(email, /choose a password/);
      assert.match(mail.text, /An account was made for you/);
      assert.doesNotMatch(mail.text, /Reset your password/);
      await choosePassword(email, /choose a password/, CHOSEN);
      assert.equal((await signIn(email, CHOSEN)).statusCode, 200);
    });

    it('marks an email verified, renames, and sends a reset link that sets a new password', async () => {
      const email = 'reset-me@example.test';
      const created = (await create({ email, password: PASSWORD })).json() as { data: UserDoc };
      assert.equal(created.data.attributes.emailVerified, false);
      const patched = await call({
        method: 'PATCH',
        url: `/admin/users/${created.data.id}`,
        headers: ADMIN,
        payload: { emailVerified: true, name: 'Renamed' },
      });
      assert.equal(patched.statusCode, 200, patched.body);
      assert.equal((patched.json() as { data: UserDoc }).data.attributes.emailVerified, true);
      assert.equal((patched.json() as { data: UserDoc }).data.attributes.name, 'Renamed');

      const sent = await call({
        method: 'POST',
        url: `/admin/users/${created.data.id}/password-reset`,
        headers: ADMIN,
      });
      assert.equal(sent.statusCode, 202, sent.body);
      assert.deepEqual(sent.json(), { meta: { sentTo: email } });
      await choosePassword(email, /Reset your password/, CHOSEN);
      assert.equal((await signIn(email, PASSWORD)).statusCode, 401, 'the old password no longer works');
      assert.equal((await signIn(email, CHOSEN)).statusCode, 200);
    });

    it('finds users by part of the email or name, case-insensitively, paged', async () => {
      for (const [email, name] of [
        ['grace.hopper@navy.test', 'Grace Hopper'],
        ['g.h@other.test', 'Someone Hopperton'],
        ['unrelated@example.test', 'Nobody'],
      ]) {
        assert.equal((await create({ email, name, password: PASSWORD })).statusCode, 201);
      }
      const found = (await call({ method: 'GET', url: '/admin/users?search=HOPPER', headers: ADMIN })).json() as {
        data: UserDoc[];
        meta: { total: number };
      };
      assert.deepEqual(
        found.data.map((u) => u.attributes.email),
        ['grace.hopper@navy.test', 'g.h@other.test'],
      );
      assert.equal(found.meta.total, 2);
      const byDomain = (await call({ method: 'GET', url: '/admin/users?search=navy.te', headers: ADMIN })).json() as {
        data: UserDoc[];
      };
      assert.deepEqual(
        byDomain.data.map((u) => u.attributes.name),
        ['Grace Hopper'],
      );
      const paged = (
        await call({ method: 'GET', url: '/admin/users?search=hopper&_limit=1&_offset=1', headers: ADMIN })
      ).json() as { data: UserDoc[]; meta: { total: number } };
      assert.equal(paged.meta.total, 2);
      assert.deepEqual(
        paged.data.map((u) => u.attributes.email),
        ['g.h@other.test'],
      );
    });

    it('takes LIKE wildcards in a search literally', async () => {
      assert.equal((await create({ email: 'under_score@example.test', password: PASSWORD })).statusCode, 201);
      assert.equal((await create({ email: 'underXscore@example.test', password: PASSWORD })).statusCode, 201);
      assert.equal(
        (await create({ email: 'percent@example.test', name: '100% sure', password: PASSWORD })).statusCode,
        201,
      );
      const emails = async (term: string) =>
        (
          (
            await call({ method: 'GET', url: `/admin/users?search=${encodeURIComponent(term)}`, headers: ADMIN })
          ).json() as {
            data: UserDoc[];
          }
        ).data.map((u) => u.attributes.email);
      assert.deepEqual(await emails('under_score'), ['under_score@example.test']);
      assert.deepEqual(await emails('%'), ['percent@example.test']);
      assert.deepEqual(await emails('\\'), []);
      assert.deepEqual(await emails('r%s'), []);
    });

    it('refuses bad bodies and searches with the member or parameter named', async () => {
      const both = await create({ email: 'both@example.test', password: PASSWORD, invite: true });
      assert.equal(both.statusCode, 400);
      assert.deepEqual(errorPointers(both), ['/data/attributes/invite']);
      const bad = await create({ email: 'not-an-address', primaryRole: 'owner', extra: 1 });
      assert.equal(bad.statusCode, 400);
      assert.ok(errorPointers(bad).includes('/data/attributes/extra'));
      const noEmail = await create({ name: 'x' });
      assert.deepEqual(errorPointers(noEmail), ['/data/attributes/email']);
      const badEmail = await create({ email: 'not-an-address' });
      assert.deepEqual(errorPointers(badEmail), ['/data/attributes/email']);
      const role = await create({ email: 'role@example.test', primaryRole: 'owner' });
      assert.equal(role.statusCode, 400);
      const taken = await create({ email: 'ada@example.test', password: PASSWORD });
      assert.equal(taken.statusCode, 409);
      assert.deepEqual(errorPointers(taken), ['/data/attributes/email']);
      // The schema's problems and the ones it cannot see (a blank name, a role name's spaces) in one answer.
      const several = await create({ email: 'several@example.test', name: '   ', allowedRoles: '[1]', invite: 'yes' });
      assert.equal(several.statusCode, 400);
      assert.deepEqual(errorPointers(several).sort(), [
        '/data/attributes/allowedRoles',
        '/data/attributes/invite',
        '/data/attributes/name',
      ]);
      const blankName = await call({
        method: 'PATCH',
        url: '/admin/users/whatever',
        headers: ADMIN,
        payload: { name: ' ' },
      });
      assert.deepEqual(errorPointers(blankName), ['/data/attributes/name']);
      const resetWithBody = await call({
        method: 'POST',
        url: '/admin/users/no-such-user/password-reset',
        headers: ADMIN,
        payload: { redirectTo: 'x' },
      });
      assert.equal(resetWithBody.statusCode, 400);
      const short = await create({ email: 'short@example.test', password: 'x' });
      assert.deepEqual(errorPointers(short), ['/data/attributes/password']);
      const verified = await call({
        method: 'PATCH',
        url: '/admin/users/whatever',
        headers: ADMIN,
        payload: { emailVerified: 'yes' },
      });
      assert.equal(verified.statusCode, 400);
      assert.deepEqual(errorPointers(verified), ['/data/attributes/emailVerified']);
      const long = await call({ method: 'GET', url: `/admin/users?search=${'a'.repeat(101)}`, headers: ADMIN });
      assert.equal(long.statusCode, 400);
      assert.equal(
        (long.json() as { errors: { source: { parameter: string } }[] }).errors[0]!.source.parameter,
        'search',
      );
      const empty = await call({ method: 'GET', url: '/admin/users?search=', headers: ADMIN });
      assert.equal(empty.statusCode, 400);
      const unknown = await call({ method: 'POST', url: '/admin/users/no-such-user/password-reset', headers: ADMIN });
      assert.equal(unknown.statusCode, 404);
      assert.deepEqual(errorCodes(unknown), ['RESOURCE_NOT_FOUND']);
    });

    it('is for the admin token only: a user key is 403 and no body is read without it', async () => {
      const key = await issueKey(suite.t, { email: 'ada@example.test', password: PASSWORD });
      const userId = (
        (await call({ method: 'GET', url: '/me', headers: bearer(key.key) })).json() as { data: { id: string } }
      ).data.id;
      const attempts: InjectOptions[] = [
        { method: 'POST', url: '/admin/users', payload: { email: 'evil@example.test', password: PASSWORD } },
        { method: 'POST', url: `/admin/users/${userId}/password-reset` },
        { method: 'PATCH', url: `/admin/users/${userId}`, payload: { emailVerified: true, primaryRole: 'editor' } },
        { method: 'GET', url: '/admin/users?search=a' },
      ];
      for (const attempt of attempts) {
        const asUser = await call({ ...attempt, headers: bearer(key.key) });
        assert.equal(asUser.statusCode, 403, `${attempt.method} ${attempt.url}`);
        const anonymous = await call({
          ...attempt,
          headers: { 'content-type': 'application/json' },
          payload: '{not json',
        });
        assert.equal(anonymous.statusCode, 401, `${attempt.method} ${attempt.url} without a token`);
      }
      assert.equal((await signIn('evil@example.test', PASSWORD)).statusCode, 401, 'no user was made');
    });
  });
}

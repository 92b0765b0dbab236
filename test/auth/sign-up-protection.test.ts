// Sign-up abuse: attempts are throttled per client address (auth.signUpThrottle), and with email
// verification required a registered address gets exactly the answer a new one gets, while its owner
// is told by email (real SMTP receiver) that someone tried to sign up with it.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { testDialects } from '../helpers/test-databases.ts';
import { testConfig } from '../helpers/test-config.ts';
import type { SvcConfig } from '../../src/config/config-types.ts';
import { PASSWORD, errorCodes, signUp, startAuthSuite, uniqueEmail, type AuthSuite } from './auth-fixtures.ts';

interface CapturedMail {
  to: string[];
  raw: string;
}

async function startSmtpServer(): Promise<{ url: string; mails: CapturedMail[]; close(): Promise<void> }> {
  const mails: CapturedMail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        mails.push({ to: session.envelope.rcptTo.map((r) => r.address), raw: Buffer.concat(chunks).toString('utf8') });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  return {
    url: `smtp://127.0.0.1:${port}`,
    mails,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The mails sent to `to`, once at least `count` arrived (a mail may land just after the answer). */
async function mailsTo(mails: CapturedMail[], to: string, count: number): Promise<CapturedMail[]> {
  for (let i = 0; i < 500; i++) {
    const found = mails.filter((m) => m.to.includes(to));
    if (found.length >= count) return found;
    await new Promise((resolve) => setImmediate(resolve));
    if (i > 50) await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return mails.filter((m) => m.to.includes(to));
}

/** A JSON value's shape: its keys and value types, recursively, without the values. */
function shapeOf(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(shapeOf);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((key) => [key, shapeOf((value as Record<string, unknown>)[key])]),
    );
  }
  return value === null ? 'null' : typeof value;
}

function authWith(databaseUrl: string, changes: Partial<SvcConfig['auth']>): { auth: SvcConfig['auth'] } {
  return { auth: { ...testConfig(databaseUrl).auth, ...changes } };
}

for (const dialect of testDialects()) {
  describe(`the sign-up throttle on ${dialect}`, () => {
    let suite: AuthSuite;
    before(async () => {
      suite = await startAuthSuite(
        dialect,
        authWith('sqlite::memory:', { signUpThrottle: { enabled: true, maxPerAddress: 3, windowMs: 60_000 } }),
      );
    });
    after(() => suite.close());

    it('refuses the attempt past the limit from one address with 429 RATE_LIMITED, and serves other addresses', async () => {
      const from = (remoteAddress: string, email: string, password = PASSWORD) =>
        suite.t.inject({
          method: 'POST',
          url: '/auth/sign-up/email',
          remoteAddress,
          payload: { name: 'N', email, password },
        });
      // Failed attempts count too: a registered address, then a too-short password.
      const known = uniqueEmail('known');
      assert.equal((await from('10.0.0.1', known)).statusCode, 200);
      assert.equal((await from('10.0.0.1', known)).statusCode, 422);
      assert.equal((await from('10.0.0.1', uniqueEmail('short'), 'x')).statusCode, 400);
      const refused = await from('10.0.0.1', uniqueEmail('fourth'));
      assert.equal(refused.statusCode, 429, refused.body);
      assert.deepEqual(errorCodes(refused), ['RATE_LIMITED']);
      assert.ok(Number(refused.headers['retry-after']) > 0, 'Retry-After says when to try again');
      assert.equal((await from('10.0.0.2', uniqueEmail('elsewhere'))).statusCode, 200);
      // Signing in is not a sign-up: the address may still sign in.
      const signIn = await suite.t.inject({
        method: 'POST',
        url: '/auth/sign-in/email',
        remoteAddress: '10.0.0.1',
        payload: { email: known, password: PASSWORD },
      });
      assert.equal(signIn.statusCode, 200, signIn.body);
    });
  });

  describe(`sign-up with email verification required on ${dialect}`, () => {
    let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
    let suite: AuthSuite;
    before(async () => {
      smtp = await startSmtpServer();
      suite = await startAuthSuite(
        dialect,
        authWith('sqlite::memory:', {
          requireEmailVerification: true,
          email: { from: 'svc <no-reply@localhost>', smtpUrl: smtp.url },
        }),
      );
    });
    after(async () => {
      await suite.close();
      await smtp.close();
    });

    it('answers a registered address exactly as a new one, and mails its owner about the attempt', async () => {
      const known = uniqueEmail('registered');
      await signUp(suite.t, known);
      const fresh = uniqueEmail('fresh');
      const again = await suite.t.inject({
        method: 'POST',
        url: '/auth/sign-up/email',
        payload: { name: 'Test User', email: known, password: 'another password!' },
      });
      const first = await suite.t.inject({
        method: 'POST',
        url: '/auth/sign-up/email',
        payload: { name: 'Test User', email: fresh, password: PASSWORD },
      });
      assert.equal(again.statusCode, 200, again.body);
      assert.equal(first.statusCode, 200, first.body);
      assert.deepEqual(shapeOf(again.json()), shapeOf(first.json()), 'the answers differ in shape');
      assert.equal(again.json().token, null);
      assert.equal(first.json().token, null);
      assert.equal(again.json().user.email, known);
      assert.equal(again.headers['set-cookie'], first.headers['set-cookie']);

      // The owner: the verification mail of the first sign-up, then the notice of this attempt.
      const ownerMails = await mailsTo(smtp.mails, known, 2);
      assert.equal(ownerMails.length, 2, 'the owner got the verification mail and the notice');
      assert.match(ownerMails[1]!.raw, /Subject: Someone tried to sign up with your email address/);
      assert.match(ownerMails[1]!.raw, /already has one/);
      assert.doesNotMatch(ownerMails[1]!.raw, /verify-email/);
      // The new address gets its verification link, no notice.
      const freshMails = await mailsTo(smtp.mails, fresh, 1);
      assert.equal(freshMails.length, 1);
      assert.match(freshMails[0]!.raw, /Subject: Verify your email address/);

      // The attempt changed nothing: the registered password still works, the other one does not.
      const other = await suite.t.inject({
        method: 'POST',
        url: '/token',
        payload: { email: known, password: 'another password!' },
      });
      assert.equal(other.statusCode, 401);
    });
  });
}

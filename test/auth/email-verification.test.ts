// Email verification when required: sign-up mails a link (real SMTP server here, or the log without
// one), /token refuses the unverified user, and following the link unlocks it.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { testDialects } from '../helpers/test-databases.ts';
import type { SvcConfig } from '../../src/config/config-types.ts';
import {
  PASSWORD,
  errorCodes,
  issueKey,
  signUp,
  startAuthSuite,
  uniqueEmail,
  type AuthSuite,
} from './auth-fixtures.ts';

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

/** The verification link in a mail or log line, as a path the app can be asked for. */
function verificationPath(text: string): string {
  // Quoted-printable soft line breaks and `=3D` would split or mangle the link in a raw mail.
  const decoded = text.replace(/=\r?\n/g, '').replace(/=3D/g, '=');
  const match = /https?:\/\/[^\s"<>]+\/auth\/verify-email\?[^\s"<>]+/.exec(decoded);
  assert.ok(match, `no verification link in: ${text.slice(0, 500)}`);
  const url = new URL(match[0].replace(/&amp;/g, '&'));
  return url.pathname + url.search;
}

function verifyingAuth(config: Partial<SvcConfig['auth']['email']> = {}): { auth: SvcConfig['auth'] } {
  return {
    auth: {
      basePath: '/auth',
      requireEmailVerification: true,
      defaultRole: 'user',
      social: {},
      email: { from: 'svc <no-reply@localhost>', ...config },
    },
  };
}

for (const dialect of testDialects()) {
  describe(`email verification over SMTP on ${dialect}`, () => {
    let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
    let suite: AuthSuite;
    before(async () => {
      smtp = await startSmtpServer();
      suite = await startAuthSuite(dialect, verifyingAuth({ smtpUrl: smtp.url }));
    });
    after(async () => {
      await suite.close();
      await smtp.close();
    });

    it('mails a link at sign-up; /token is 403 until it is followed, then issues a key', async () => {
      const email = uniqueEmail('verify');
      await signUp(suite.t, email);
      const mail = smtp.mails.find((m) => m.to.includes(email));
      assert.ok(mail, 'a verification mail was sent to the new user');
      assert.match(mail.raw, /From: svc <no-reply@localhost>/);

      const early = await suite.t.inject({ method: 'POST', url: '/token', payload: { email, password: PASSWORD } });
      assert.equal(early.statusCode, 403);
      assert.deepEqual(errorCodes(early), ['EMAIL_NOT_VERIFIED']);

      const verify = await suite.t.inject({ method: 'GET', url: verificationPath(mail.raw) });
      assert.ok([200, 302].includes(verify.statusCode), `verify-email answered ${verify.statusCode} ${verify.body}`);

      const issued = await issueKey(suite.t, { email, password: PASSWORD });
      assert.match(issued.key, /^svc_/);
    });

    it('answers a wrong password with INVALID_CREDENTIALS even before verification (no email probing)', async () => {
      const email = uniqueEmail('unverified');
      await signUp(suite.t, email);
      const response = await suite.t.inject({
        method: 'POST',
        url: '/token',
        payload: { email, password: 'wrong password!' },
      });
      assert.equal(response.statusCode, 401);
      assert.deepEqual(errorCodes(response), ['INVALID_CREDENTIALS']);
    });

    it('refuses better-auth sign-in before verification too', async () => {
      const email = uniqueEmail('signin');
      await signUp(suite.t, email);
      const response = await suite.t.inject({
        method: 'POST',
        url: '/auth/sign-in/email',
        payload: { email, password: PASSWORD },
      });
      assert.equal(response.statusCode, 403);
    });
  });

  describe(`email verification without SMTP on ${dialect}`, () => {
    let suite: AuthSuite;
    before(async () => {
      suite = await startAuthSuite(dialect, verifyingAuth());
    });
    after(() => suite.close());

    it('logs the link instead, and the logged link verifies the user', async () => {
      const email = uniqueEmail('logged');
      await signUp(suite.t, email);
      const line = suite.t.logs.find((l) => l.to === email && typeof l.url === 'string');
      assert.ok(line, 'the verification link was logged');
      assert.deepEqual(
        errorCodes(await suite.t.inject({ method: 'POST', url: '/token', payload: { email, password: PASSWORD } })),
        ['EMAIL_NOT_VERIFIED'],
      );
      const verify = await suite.t.inject({ method: 'GET', url: verificationPath(String(line.url)) });
      assert.ok([200, 302].includes(verify.statusCode));
      await issueKey(suite.t, { email, password: PASSWORD });
    });
  });
}

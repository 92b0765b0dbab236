// auth.magicLink, auth.emailOtp and auth.twoFactor through better-auth's plugins, with mail through a
// real SMTP receiver: sign-in by emailed link and by emailed code, a user turning on TOTP two-factor
// for themselves, sign-in then asking for the code, and POST /token requiring `otp`, throttled.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { base32 } from '@better-auth/utils/base32';
import { createOTP } from '@better-auth/utils/otp';
import { testDialects } from '../helpers/test-databases.ts';
import { CookieJar } from '../helpers/cookie-jar.ts';
import { startSmtpReceiver, type SmtpReceiver } from '../helpers/smtp-receiver.ts';
import { errorCodes, startAuthSuite, uniqueEmail, type AuthSuite } from './auth-fixtures.ts';
import { ResponseConformance } from '../openapi/response-conformance.ts';

const PASSWORD = 'a long enough password 42';

function passwordlessAuth(smtpUrl: string) {
  return {
    auth: {
      basePath: '/auth',
      requireEmailVerification: false,
      defaultRole: 'user',
      social: {},
      email: { from: 'svc <no-reply@localhost>', smtpUrl },
      baseUrl: 'http://localhost:3999',
      magicLink: { enabled: true, expiresIn: 300 },
      emailOtp: { enabled: true, expiresIn: 300 },
      twoFactor: { enabled: true, issuer: 'svc tests' },
      loginThrottle: { enabled: true, maxFailuresPerAccount: 3, maxFailuresPerAddress: 1000, windowMs: 60_000 },
    },
  };
}

/** The current code of an otpauth:// URI's secret, as an authenticator app computes it. */
function currentCode(totpUri: string): Promise<string> {
  const secret = new URL(totpUri).searchParams.get('secret')!;
  return createOTP(base32.decode(secret), { digits: 6, period: 30 }).totp();
}

/** A code that is not the current one (nor one a step either side, which verifiers also accept). */
async function wrongCode(totpUri: string): Promise<string> {
  const right = Number(await currentCode(totpUri));
  return String((right + 500_000) % 1_000_000).padStart(6, '0');
}

for (const dialect of testDialects()) {
  describe(`passwordless sign-in and two-factor (${dialect})`, () => {
    let smtp: SmtpReceiver;
    let suite: AuthSuite;
    const post = (url: string, payload: unknown, jar?: CookieJar) =>
      suite.t.inject({
        method: 'POST',
        url,
        payload: payload as object,
        headers: jar ? { cookie: jar.header(), origin: 'http://localhost:3999' } : {},
      });

    before(async () => {
      smtp = await startSmtpReceiver();
      suite = await startAuthSuite(dialect, passwordlessAuth(smtp.url) as never);
    });
    after(async () => {
      await suite.close();
      await smtp.close();
    });

    it('GET /auth/methods says the three are on', async () => {
      const methods = (await suite.t.inject({ method: 'GET', url: '/auth/methods' })).json();
      assert.equal(methods.magicLink, true);
      assert.equal(methods.emailOtp, true);
      assert.equal(methods.twoFactor, true);
    });

    it('signs in with a link sent by email (a new address becomes a user)', async () => {
      const email = uniqueEmail('link');
      const asked = await post('/auth/sign-in/magic-link', { email, callbackURL: '/console/' });
      assert.equal(asked.statusCode, 200, asked.body);
      const mail = await smtp.waitFor(email, /magic-link\/verify/);
      assert.match(mail.text, /Subject: Your sign-in link/);
      const link = new URL(
        /https?:\/\/[^\s"<>]+\/auth\/magic-link\/verify\?[^\s"<>]+/.exec(mail.text)![0].replace(/&amp;/g, '&'),
      );
      const jar = new CookieJar();
      const opened = await suite.t.inject({ method: 'GET', url: link.pathname + link.search });
      assert.equal(opened.statusCode, 302, opened.body);
      jar.absorb(opened.headers['set-cookie']);
      const session = await suite.t.inject({
        method: 'GET',
        url: '/auth/get-session',
        headers: { cookie: jar.header() },
      });
      assert.equal(session.json()?.user?.email, email);
      // Single use: the same link again signs no one in.
      const again = await suite.t.inject({ method: 'GET', url: link.pathname + link.search });
      assert.equal(
        String(again.headers['set-cookie'] ?? '').includes('session_token=') &&
          !String(again.headers['set-cookie']).includes('Max-Age=0'),
        false,
      );
    });

    it('signs in with a one-time code sent by email; a wrong code is refused (not a 500)', async () => {
      const email = uniqueEmail('code');
      const asked = await post('/auth/email-otp/send-verification-otp', { email, type: 'sign-in' });
      assert.equal(asked.statusCode, 200, asked.body);
      const mail = await smtp.waitFor(email, /Your sign-in code/);
      const code = /Your sign-in code is (\d{6})/.exec(mail.text)![1]!;
      const wrong = await post('/auth/sign-in/email-otp', { email, otp: code === '000000' ? '111111' : '000000' });
      assert.ok(wrong.statusCode >= 400 && wrong.statusCode < 500, wrong.body);
      const signedIn = await post('/auth/sign-in/email-otp', { email, otp: code });
      assert.equal(signedIn.statusCode, 200, signedIn.body);
      assert.equal(signedIn.json().user.email, email);
      assert.ok(String(signedIn.headers['set-cookie']).includes('svc.session_token='));
    });

    it('sign-in links and codes are mailed under the login throttle: the N+1th request for an address is 429', async () => {
      for (const [path, extra] of [
        ['/auth/sign-in/magic-link', { callbackURL: '/console/' }],
        ['/auth/email-otp/send-verification-otp', { type: 'sign-in' }],
      ] as const) {
        const email = uniqueEmail('flood');
        for (let i = 0; i < 3; i += 1) {
          const sent = await post(path, { email, ...extra });
          assert.equal(sent.statusCode, 200, `${path} #${i + 1}: ${sent.body}`);
        }
        const flooded = await post(path, { email, ...extra });
        assert.equal(flooded.statusCode, 429, `${path}: ${flooded.body}`);
        assert.deepEqual(errorCodes(flooded), ['RATE_LIMITED']);
        assert.ok(flooded.headers['retry-after'], 'Retry-After says when to try again');
      }
    });

    it('wrong emailed codes count as failed sign-ins: after the limit even the right code is 429', async () => {
      const email = uniqueEmail('code-guess');
      assert.equal((await post('/auth/email-otp/send-verification-otp', { email, type: 'sign-in' })).statusCode, 200);
      const mail = await smtp.waitFor(email, /Your sign-in code/);
      const code = /Your sign-in code is (\d{6})/.exec(mail.text)![1]!;
      const wrong = code === '000000' ? '111111' : '000000';
      for (let i = 0; i < 3; i += 1) {
        const refused = await post('/auth/sign-in/email-otp', { email, otp: wrong });
        assert.ok(refused.statusCode === 400 || refused.statusCode === 403, refused.body);
      }
      const throttled = await post('/auth/sign-in/email-otp', { email, otp: code });
      assert.equal(throttled.statusCode, 429, throttled.body);
      assert.deepEqual(errorCodes(throttled), ['RATE_LIMITED']);
    });

    it("the email-OTP plugin's own password reset is closed: resets go through /auth/request-password-reset", async () => {
      const email = uniqueEmail('otp-reset');
      assert.equal((await post('/auth/sign-up/email', { email, password: PASSWORD, name: 'Reset' })).statusCode, 200);
      for (const [path, body] of [
        ['/auth/email-otp/request-password-reset', { email }],
        ['/auth/forget-password/email-otp', { email }],
        ['/auth/email-otp/reset-password', { email, otp: '123456', password: 'another long password 7' }],
      ] as const) {
        const closed = await post(path, body);
        assert.equal(closed.statusCode, 404, `${path}: ${closed.body}`);
        assert.deepEqual(errorCodes(closed), ['ROUTE_NOT_FOUND']);
      }
      // The password is unchanged: it still gets a key.
      const key = await post('/token', { email, password: PASSWORD });
      assert.equal(key.statusCode, 201, key.body);
    });

    it('the plugin endpoints answer as /openapi.json describes them', async () => {
      const spec = new ResponseConformance((await suite.t.inject({ method: 'GET', url: '/openapi.json' })).json());
      const checked = async (path: string, payload: unknown, jar?: CookieJar) => {
        const response = await post(path, payload, jar);
        spec.check('POST', path, response);
        return response;
      };
      const email = uniqueEmail('doc-plugins');
      assert.equal((await checked('/auth/sign-in/magic-link', { email, callbackURL: '/console/' })).statusCode, 200);
      assert.equal((await checked('/auth/sign-in/magic-link', { email: 42 })).statusCode, 400);
      const mail = await smtp.waitFor(email, /magic-link\/verify/);
      const link = new URL(
        /https?:\/\/[^\s"<>]+\/auth\/magic-link\/verify\?[^\s"<>]+/.exec(mail.text)![0].replace(/&amp;/g, '&'),
      );
      const opened = await suite.t.inject({ method: 'GET', url: link.pathname + link.search });
      spec.check('GET', '/auth/magic-link/verify', opened);
      assert.equal(opened.statusCode, 302);

      const coded = uniqueEmail('doc-code');
      assert.equal(
        (await checked('/auth/email-otp/send-verification-otp', { email: coded, type: 'sign-in' })).statusCode,
        200,
      );
      const code = /Your sign-in code is (\d{6})/.exec((await smtp.waitFor(coded, /Your sign-in code/)).text)![1]!;
      const wrongOtp = await checked('/auth/sign-in/email-otp', {
        email: coded,
        otp: code === '000000' ? '111111' : '000000',
      });
      assert.equal(wrongOtp.statusCode, 400);
      const otpSignIn = await checked('/auth/sign-in/email-otp', { email: coded, otp: code });
      assert.equal(otpSignIn.statusCode, 200);

      const jar = new CookieJar();
      const owner = uniqueEmail('doc-tfa');
      const signedUp = await post('/auth/sign-up/email', { email: owner, password: PASSWORD, name: 'Doc' });
      jar.absorb(signedUp.headers['set-cookie']);
      assert.equal((await checked('/auth/two-factor/enable', { password: 'not the password' }, jar)).statusCode, 400);
      const enabled = await checked('/auth/two-factor/enable', { password: PASSWORD }, jar);
      assert.equal(enabled.statusCode, 200);
      const totpURI = enabled.json().totpURI as string;
      assert.equal((await checked('/auth/two-factor/get-totp-uri', { password: PASSWORD }, jar)).statusCode, 200);
      const confirmed = await checked('/auth/two-factor/verify-totp', { code: await currentCode(totpURI) }, jar);
      assert.equal(confirmed.statusCode, 200);
      jar.absorb(confirmed.headers['set-cookie']);
      assert.equal(
        (await checked('/auth/two-factor/generate-backup-codes', { password: PASSWORD }, jar)).statusCode,
        200,
      );
      assert.equal((await checked('/auth/two-factor/disable', { password: PASSWORD }, jar)).statusCode, 200);
      assert.equal((await checked('/auth/two-factor/disable', { password: PASSWORD })).statusCode, 401);
    });

    /** Signs a new user up and turns two-factor on for them; returns the otpauth URI. */
    async function userWithTwoFactor(
      email: string,
    ): Promise<{ totpURI: string; backupCodes: string[]; jar: CookieJar }> {
      const jar = new CookieJar();
      const signedUp = await post('/auth/sign-up/email', { email, password: PASSWORD, name: 'Two Factor' });
      assert.equal(signedUp.statusCode, 200, signedUp.body);
      jar.absorb(signedUp.headers['set-cookie']);
      const enabled = await post('/auth/two-factor/enable', { password: PASSWORD }, jar);
      assert.equal(enabled.statusCode, 200, enabled.body);
      const { totpURI, backupCodes } = enabled.json() as { totpURI: string; backupCodes: string[] };
      assert.match(totpURI, /^otpauth:\/\/totp\/svc%20tests:/);
      assert.equal(backupCodes.length, 10);
      // On only once a code from the app was checked.
      const confirmed = await post('/auth/two-factor/verify-totp', { code: await currentCode(totpURI) }, jar);
      assert.equal(confirmed.statusCode, 200, confirmed.body);
      jar.absorb(confirmed.headers['set-cookie']);
      return { totpURI, backupCodes, jar };
    }

    it('a user turns two-factor on; sign-in then asks for the code and completes with it', async () => {
      const email = uniqueEmail('tfa');
      const { totpURI } = await userWithTwoFactor(email);
      const jar = new CookieJar();
      const first = await post('/auth/sign-in/email', { email, password: PASSWORD });
      assert.equal(first.statusCode, 200, first.body);
      assert.equal(first.json().twoFactorRedirect, true);
      jar.absorb(first.headers['set-cookie']);
      assert.equal(jar.has('svc.session_token'), false, 'no session before the code');
      const second = await post('/auth/two-factor/verify-totp', { code: await currentCode(totpURI) }, jar);
      assert.equal(second.statusCode, 200, second.body);
      jar.absorb(second.headers['set-cookie']);
      assert.ok(jar.has('svc.session_token'), 'the code completes the sign-in');
    });

    it('POST /token for a user with two-factor: 403 TWO_FACTOR_REQUIRED without otp, 401 with a wrong one, 201 with the code', async () => {
      const email = uniqueEmail('tfa-token');
      const { totpURI, jar } = await userWithTwoFactor(email);
      const missing = await post('/token', { email, password: PASSWORD });
      assert.equal(missing.statusCode, 403, missing.body);
      // As /openapi.json declares it, with the otp field and both codes.
      const spec = new ResponseConformance((await suite.t.inject({ method: 'GET', url: '/openapi.json' })).json());
      spec.check('POST', '/token', missing);
      spec.check('GET', '/auth/methods', await suite.t.inject({ method: 'GET', url: '/auth/methods' }));
      assert.deepEqual(errorCodes(missing), ['TWO_FACTOR_REQUIRED']);
      assert.equal(missing.json().errors[0].source.pointer, '/data/attributes/otp');
      const wrong = await post('/token', { email, password: PASSWORD, otp: await wrongCode(totpURI) });
      assert.equal(wrong.statusCode, 401, wrong.body);
      assert.deepEqual(errorCodes(wrong), ['INVALID_TWO_FACTOR_CODE']);
      assert.equal(wrong.json().errors[0].source.pointer, '/data/attributes/otp');
      spec.check('POST', '/token', wrong);
      const malformed = await post('/token', { email, password: PASSWORD, otp: { code: 1 } });
      assert.equal(malformed.statusCode, 400, malformed.body);
      const issued = await post('/token', { email, password: PASSWORD, otp: await currentCode(totpURI) });
      assert.equal(issued.statusCode, 201, issued.body);
      assert.match(issued.json().key, /^svc_/);
      // The wrong password is still just a wrong password: no hint that two-factor is on.
      const badPassword = await post('/token', { email, password: 'not it', otp: await currentCode(totpURI) });
      assert.deepEqual(errorCodes(badPassword), ['INVALID_CREDENTIALS']);

      // Turned off again by the user, /token needs the password only.
      const disabled = await post('/auth/two-factor/disable', { password: PASSWORD }, jar);
      assert.equal(disabled.statusCode, 200, disabled.body);
      const plain = await post('/token', { email, password: PASSWORD });
      assert.equal(plain.statusCode, 201, plain.body);
    });

    it('wrong codes at /token count against the login throttle; asking without a code does not reset it', async () => {
      const email = uniqueEmail('tfa-throttle');
      const { totpURI } = await userWithTwoFactor(email);
      for (let i = 0; i < 3; i += 1) {
        if (i === 1) assert.equal((await post('/token', { email, password: PASSWORD })).statusCode, 403);
        const wrong = await post('/token', { email, password: PASSWORD, otp: await wrongCode(totpURI) });
        assert.equal(wrong.statusCode, 401, wrong.body);
      }
      const throttled = await post('/token', { email, password: PASSWORD, otp: await currentCode(totpURI) });
      assert.equal(throttled.statusCode, 429, throttled.body);
      assert.deepEqual(errorCodes(throttled), ['RATE_LIMITED']);
    });
  });
}

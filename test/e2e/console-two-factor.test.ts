// The console's sign-in page and two-factor section in headless Chromium against a real svc on
// 127.0.0.1: a button per provider that is on (GET /auth/methods), a user turning two-factor on from
// the account page with a code computed as an authenticator app would, and the next sign-in asking for
// the code. Screenshots are saved for a person to look at.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { base32 } from '@better-auth/utils/base32';
import { createOTP } from '@better-auth/utils/otp';
import { OAuth2Server } from 'oauth2-mock-server';
import { chromium, type Browser, type Page } from 'playwright-core';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';
import { ensureConsoleBuilt } from '../helpers/console-build.ts';

const CHROMIUM = '/usr/bin/chromium';
const EMAIL = 'tess@example.test';
const PASSWORD = 'correct horse battery staple';
const SHOTS = mkdtempSync(join(tmpdir(), 'svc-console-2fa-'));
const WAIT = { timeout: 15_000 };
const skip = existsSync(CHROMIUM) ? false : `${CHROMIUM} is not installed: the console's browser tests are skipped`;

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

function codeOf(secret: string): Promise<string> {
  return createOTP(base32.decode(secret), { digits: 6, period: 30 }).totp();
}

describe('console: provider buttons and two-factor', { skip }, () => {
  let t: TestApp;
  let provider: OAuth2Server;
  let browser: Browser;
  let page: Page;
  let base: string;
  let secret = '';

  before(async () => {
    await ensureConsoleBuilt();
    provider = new OAuth2Server();
    await provider.issuer.keys.generate('RS256');
    await provider.start(0, '127.0.0.1');
    const claims = { sub: 'sso-7', email: 'sso.user@example.test', email_verified: true, name: 'SSO User' };
    provider.service.on('beforeTokenSigning', (token: { payload: Record<string, unknown> }) =>
      Object.assign(token.payload, claims, { aud: 'svc' }),
    );
    provider.service.on('beforeUserinfo', (response: { body: unknown }) => {
      response.body = claims;
    });
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    t = await startTestApp('sqlite', {
      server: { port, host: '127.0.0.1', cors: { origins: [] }, bodyLimitBytes: 1048576 },
      auth: {
        basePath: '/auth',
        requireEmailVerification: false,
        defaultRole: 'user',
        baseUrl: base,
        email: { from: 'svc <no-reply@localhost>' },
        social: { github: { clientId: 'gh', clientSecret: 'gh-secret' } },
        oidc: [{ id: 'keycloak', name: 'Company SSO', issuer: provider.issuer.url!, clientId: 'svc' }],
        twoFactor: { enabled: true },
      } as never,
    });
    await t.ctx.auth.users.create({ id: 'tess', email: EMAIL, password: PASSWORD, role: 'user', verified: true });
    await t.app.listen({ port, host: '127.0.0.1' });
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run'],
    });
    page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
  });
  after(async () => {
    await browser?.close();
    await t?.close();
    await provider?.stop();
  });

  const signIn = async () => {
    await page.goto(`${base}/console/`);
    await page.locator('#signin-email').fill(EMAIL);
    await page.locator('#signin-password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  };

  it('the sign-in page shows a button for each provider that is on', async () => {
    await page.goto(`${base}/console/`);
    await page.getByRole('button', { name: 'Continue with GitHub' }).waitFor(WAIT);
    await page.getByRole('button', { name: 'Continue with Company SSO' }).waitFor(WAIT);
    assert.equal(await page.locator('.providers button').count(), 2);
    await page.getByRole('link', { name: 'Forgot your password?' }).waitFor(WAIT);
    await page.screenshot({ path: join(SHOTS, 'sign-in-providers.png'), fullPage: true });
  });

  it('the OIDC button goes through the provider and back to the console, which turns the session into its key', async () => {
    const toProvider = page.waitForRequest((request) => request.url().startsWith(provider.issuer.url!), WAIT);
    const back = page.waitForResponse((response) => response.url().startsWith(`${base}/auth/callback/keycloak?`), WAIT);
    await page.getByRole('button', { name: 'Continue with Company SSO' }).click();
    await toProvider;
    const callback = await back;
    assert.equal(callback.status(), 302);
    assert.equal(await callback.headerValue('location'), '/console/#/provider-signed-in');
    const issued = await page.waitForResponse(
      (response) => response.url() === `${base}/token` && response.request().method() === 'POST',
      WAIT,
    );
    assert.equal(issued.status(), 201, 'POST /token with the provider session issued the console key');
    await page.getByText('Signed in as sso.user@example.test').waitFor(WAIT);
    // The key acts as the SSO user on the API, and My account acts with the session.
    await page.getByRole('link', { name: 'My account' }).click();
    await page.getByRole('heading', { name: 'Sessions' }).waitFor(WAIT);
    assert.equal(await page.getByText('Managing your account needs a fresh sign-in').count(), 0);
    await page.screenshot({ path: join(SHOTS, 'provider-signed-in.png'), fullPage: true });
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.locator('#signin-email').waitFor(WAIT);
    await page.context().clearCookies();
  });

  it('a signed-in user turns two-factor on from the account page', async () => {
    await signIn();
    await page.getByRole('link', { name: 'My account' }).click();
    await page.getByLabel('Your password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Turn on' }).click();
    const uri = page.getByLabel('otpauth URI');
    await uri.waitFor(WAIT);
    assert.match(await uri.inputValue(), /^otpauth:\/\/totp\//);
    secret = await page.getByLabel('Secret (to type in)').inputValue();
    assert.equal(await page.locator('.backup-codes li').count(), 10);
    await page.screenshot({ path: join(SHOTS, 'two-factor-setup.png'), fullPage: true });
    await page.getByLabel('Code from your app').fill(await codeOf(secret));
    await page.getByRole('button', { name: 'Confirm', exact: true }).click();
    await page.getByText('Two-factor is on.').waitFor(WAIT);
    await page.screenshot({ path: join(SHOTS, 'two-factor-on.png'), fullPage: true });
  });

  it('signing in again asks for the code, and the code completes it', async () => {
    await page.screenshot({ path: join(SHOTS, 'before-sign-out.png'), fullPage: true });
    await page.getByRole('button', { name: 'Sign out', exact: true }).last().click();
    await page.locator('#signin-email').waitFor(WAIT);
    await signIn();
    const otp = page.getByLabel('Two-factor code');
    await otp.waitFor(WAIT);
    await page.screenshot({ path: join(SHOTS, 'sign-in-code.png'), fullPage: true });
    await otp.fill(await codeOf(secret));
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByText(`Signed in as ${EMAIL}`).waitFor(WAIT);
    console.log(`# screenshots in ${SHOTS}`);
  });
});

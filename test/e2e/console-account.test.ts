// The console's account pages clicked through in headless Chromium against a real svc on 127.0.0.1 and a
// real SMTP receiver: forgot password, the mailed link, the reset page; then "My account": a key issued
// with scopes from the session and revoked, an email change confirmed from the new address's mail, the
// sessions list, and deleting the account. axe-core checks the new pages; screenshots are saved.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';
import { ensureConsoleBuilt } from '../helpers/console-build.ts';
import { linkIn, startSmtpReceiver, type SmtpReceiver } from '../helpers/smtp-receiver.ts';

const CHROMIUM = '/usr/bin/chromium';
const EMAIL = 'ada@example.test';
const NEW_EMAIL = 'ada@new.example.test';
const OLD_PASSWORD = 'correct horse battery staple';
const NEW_PASSWORD = 'a brand new passphrase';
const SHOTS = mkdtempSync(join(tmpdir(), 'svc-console-account-shots-'));
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const WAIT = { timeout: 15_000 };

const skip = existsSync(CHROMIUM) ? false : `${CHROMIUM} is not installed: the console's browser tests are skipped`;

async function checkAccessibility(page: Page, view: string): Promise<void> {
  await page.evaluate(AXE_SOURCE);
  const violations = (await page.evaluate(`axe.run(document, { resultTypes: ['violations'] }).then((result) =>
    result.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => v.id + ' (' + v.impact + '): ' + v.nodes.slice(0, 3).map((n) => JSON.stringify(n.target)).join(', ')))`)) as string[];
  assert.deepEqual(violations, [], `accessibility problems on ${view}`);
}

async function shot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
}

/** A port free now, so the service's auth.baseUrl (links in mails, trusted origin) can name it before it listens. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

let broken = false;
function step(name: string, body: () => Promise<void>): void {
  it(name, async (context) => {
    if (broken) return context.skip('an earlier step failed');
    try {
      await body();
    } catch (error) {
      broken = true;
      throw error;
    }
  });
}

describe('console account pages in a browser', { skip }, () => {
  let t: TestApp;
  let smtp: SmtpReceiver;
  let base: string;
  let browser: Browser;
  let page: Page;
  let userId: string;
  const consoleLines: string[] = [];

  before(async () => {
    await ensureConsoleBuilt();
    smtp = await startSmtpReceiver();
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    t = await startTestApp('sqlite', {
      auth: {
        basePath: '/auth',
        requireEmailVerification: false,
        defaultRole: 'user',
        social: {},
        baseUrl: base,
        email: { from: 'svc <no-reply@localhost>', smtpUrl: smtp.url },
        trustedOrigins: [],
      },
    });
    userId = (await t.ctx.auth.users.create({ email: EMAIL, password: OLD_PASSWORD, role: 'user', verified: true })).id;
    await t.app.listen({ port, host: '127.0.0.1' });
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-sync',
      ],
    });
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    await context.route(/^(?!http:\/\/127\.0\.0\.1:)/, (route) => route.abort());
    page = await context.newPage();
    page.on('console', (message) => consoleLines.push(message.text()));
  });

  after(async () => {
    await browser?.close();
    await t?.close();
    await smtp?.close();
    console.log(`# console account screenshots: ${SHOTS}`);
  });

  step('asks for a reset link from the sign-in page', async () => {
    await page.goto(`${base}/console`);
    await page.getByRole('link', { name: 'Forgot your password?' }).click();
    await page.getByRole('heading', { name: 'Forgot your password?' }).waitFor(WAIT);
    await checkAccessibility(page, 'forgot password');
    await page.getByLabel('Email').fill(EMAIL);
    await page.getByRole('button', { name: 'Send me a link' }).click();
    await page.getByText('a link to choose a new password is on its way').waitFor(WAIT);
    await shot(page, '1-forgot-password-sent');
  });

  step('opens the mailed link, lands on the reset page and sets a new password', async () => {
    const mail = await smtp.waitFor(EMAIL, /Reset your password/);
    const link = linkIn(mail, '/auth/reset-password/');
    assert.equal(link.origin, base, 'the link uses auth.baseUrl');
    await page.goto(link.href);
    await page.getByRole('heading', { name: 'Choose a new password' }).waitFor(WAIT);
    assert.match(page.url(), /\/console\/\?token=[^#]+#\/reset-password$/);
    await checkAccessibility(page, 'reset password');
    await shot(page, '2-reset-page');
    await page.getByLabel('New password').fill(NEW_PASSWORD);
    await page.getByLabel('Repeat it').fill(NEW_PASSWORD);
    await page.getByRole('button', { name: 'Set the new password' }).click();
    await page.getByText('Your password was changed').waitFor(WAIT);
    assert.doesNotMatch(page.url(), /token=/, 'the spent token left the address bar');
    await shot(page, '3-reset-done');
    const old = await t.request({ method: 'POST', url: '/token', payload: { email: EMAIL, password: OLD_PASSWORD } });
    assert.equal(old.statusCode, 401);
  });

  step('signs in with the new password and opens My account', async () => {
    await page.getByRole('link', { name: 'Sign in' }).click();
    await page.getByLabel('Email', { exact: true }).fill(EMAIL);
    await page.getByLabel('Password', { exact: true }).fill(NEW_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByText(`Signed in as ${EMAIL}`).waitFor(WAIT);
    await page.getByRole('link', { name: 'My account' }).click();
    await page.getByRole('heading', { name: 'My account', exact: true }).waitFor(WAIT);
    await page.getByText('this session').waitFor(WAIT);
    await checkAccessibility(page, 'my account');
    await shot(page, '4-my-account');
  });

  step('issues a read-only key on posts from the session, and revokes it', async () => {
    await page.getByLabel('Name').fill('laptop');
    await page.getByLabel('posts read').check();
    await page.getByRole('button', { name: 'Issue a key' }).click();
    const secret = page.locator('.issued-keys code');
    await secret.waitFor(WAIT);
    const key = (await secret.innerText()).trim();
    assert.match(key, /^svc_/);
    await shot(page, '5-key-issued');
    const me = await t.request({ method: 'GET', url: '/me', auth: `Bearer ${key}` });
    assert.equal(me.statusCode, 200);
    const attributes = (
      me.json() as { data: { id: string; attributes: { key: { name: string; permissions: unknown } } } }
    ).data;
    assert.equal(attributes.id, userId);
    assert.equal(attributes.attributes.key.name, 'laptop');
    assert.deepEqual(attributes.attributes.key.permissions, { posts: { read: ['*'] } });
    await page.locator('.issued-keys').getByRole('button', { name: 'Revoke' }).click();
    await page.locator('.issued-keys').getByText('revoked').waitFor(WAIT);
    assert.equal((await t.request({ method: 'GET', url: '/me', auth: `Bearer ${key}` })).statusCode, 401);
  });

  step('changes the email with the link mailed to the new address', async () => {
    await page.getByLabel('New email address').fill(NEW_EMAIL);
    await page.getByRole('button', { name: 'Send a confirmation link' }).click();
    await page.getByText(`A confirmation link was sent to ${NEW_EMAIL}`).waitFor(WAIT);
    await shot(page, '6-email-change-sent');
    const link = linkIn(await smtp.waitFor(NEW_EMAIL), '/auth/verify-email');
    assert.equal(smtp.mails.filter((m) => m.to.includes(EMAIL) && /verify/i.test(m.text)).length, 0);
    // The link is opened in the same browser, as a user clicking it in their mail would.
    const tab = await page.context().newPage();
    await tab.goto(link.href);
    await tab.waitForURL(/\/console\//, WAIT);
    await tab.close();
    const issued = await t.request({
      method: 'POST',
      url: '/token',
      payload: { email: NEW_EMAIL, password: NEW_PASSWORD },
    });
    assert.equal(issued.statusCode, 201, issued.body);
  });

  step('deletes the account with the password and returns to sign-in', async () => {
    await page.getByLabel('Password (leave empty').fill(NEW_PASSWORD);
    await page.getByLabel('I understand this cannot be undone').check();
    await shot(page, '7-delete-account');
    await page.getByRole('button', { name: 'Delete my account' }).click();
    await page.getByRole('heading', { name: 'Sign in to svc' }).waitFor(WAIT);
    assert.equal(await t.ctx.auth.users.get(userId), undefined);
    assert.ok(!consoleLines.some((line) => /svc_[A-Za-z0-9]/.test(line)), 'no key in the page log');
  });
});

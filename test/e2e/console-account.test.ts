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
/** Invited by an operator from the Users view; chooses a password from the mailed link. */
const INVITED = 'nina@example.test';
const INVITED_PASSWORD = 'nina chose this passphrase';
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
      // The operator's steps check that a refused private target names the setting that allows it.
      webhooks: { timeoutMs: 30000, allowPrivateTargets: false, pollIntervalMs: 50 },
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

  step('an operator creates a user with an invitation and marks the email verified', async () => {
    await page.getByRole('tab', { name: 'Admin token' }).click();
    await page.locator('#signin-token').fill(t.admin.replace('Bearer ', ''));
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByText('Signed in as administrator').waitFor(WAIT);
    await page.getByRole('link', { name: 'Users and keys' }).click();
    await page.getByRole('button', { name: 'New user' }).click();
    const form = page.getByRole('form', { name: 'New user' });
    await form.getByLabel(/^Email/).fill('not an address');
    await form.getByRole('button', { name: 'Create user' }).click();
    await form.locator('#new-user-email-error').waitFor(WAIT);
    await form.getByLabel(/^Email/).fill(INVITED);
    await form.getByLabel('Name').fill('Nina Newcomer');
    await form.getByLabel('Role', { exact: true }).selectOption('user');
    await form.getByRole('checkbox', { name: 'editor' }).check();
    await form.getByLabel('Send an invitation').check();
    await checkAccessibility(page, 'new user');
    await shot(page, '8-new-user');
    await form.getByRole('button', { name: 'Create user' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: `Created ${INVITED}; an invitation` })
      .waitFor(WAIT);
    await page.getByRole('heading', { name: INVITED }).waitFor(WAIT);
    const created = (await t.request({ method: 'GET', url: `/admin/users?email=${INVITED}`, auth: t.admin })).json()
      .data[0].attributes;
    assert.equal(created.name, 'Nina Newcomer');
    assert.equal(created.primaryRole, 'user');
    assert.deepEqual(JSON.parse(created.allowedRoles), ['editor']);
    assert.equal(created.emailVerified, false);
    await page.getByRole('button', { name: 'Mark email verified' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: `${INVITED} is marked verified` })
      .waitFor(WAIT);
    await page.locator('.user-actions').getByText('verified', { exact: true }).waitFor(WAIT);
    const verified = (await t.request({ method: 'GET', url: `/admin/users?email=${INVITED}`, auth: t.admin })).json();
    assert.equal(verified.data[0].attributes.emailVerified, true);
  });

  step('the invited user follows the mailed link, chooses a password and signs in', async () => {
    const mail = await smtp.waitFor(INVITED, /choose a password/);
    const link = linkIn(mail, '/auth/reset-password/');
    // A tab of its own: the operator's session stays in the first one.
    const tab = await page.context().newPage();
    try {
      await tab.goto(link.href);
      await tab.getByRole('heading', { name: 'Choose a new password' }).waitFor(WAIT);
      await tab.getByLabel('New password').fill(INVITED_PASSWORD);
      await tab.getByLabel('Repeat it').fill(INVITED_PASSWORD);
      await tab.getByRole('button', { name: 'Set the new password' }).click();
      await tab.getByText('Your password was changed').waitFor(WAIT);
      await tab.getByRole('link', { name: 'Sign in' }).click();
      await tab.getByLabel('Email', { exact: true }).fill(INVITED);
      await tab.getByLabel('Password', { exact: true }).fill(INVITED_PASSWORD);
      await tab.getByRole('button', { name: 'Sign in' }).click();
      await tab.getByText(`Signed in as ${INVITED}`).waitFor(WAIT);
      // Her allowed roles are offered in the header.
      const acting = tab.getByRole('region', { name: 'Who you are' }).getByLabel('Acting as');
      assert.deepEqual(await acting.locator('option').allTextContents(), ['user', 'editor']);
    } finally {
      await tab.close();
    }
  });

  step('sends a reset link, hides console keys unless asked, creates a user with a password', async () => {
    await page.getByRole('button', { name: 'Send a password reset link' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: `mailed to ${INVITED}` })
      .waitFor(WAIT);
    await smtp.waitFor(INVITED, /Reset your password/);
    // Her sign-in left a console key: hidden until asked for.
    await page.getByText('No keys (console keys hidden).').waitFor(WAIT);
    await page.getByLabel('Show console keys').check();
    await page.locator('tr.api-key.console-key').first().waitFor(WAIT);
    assert.match(await page.locator('tr.api-key').first().innerText(), /console sign-in/);
    await checkAccessibility(page, 'users with console keys');
    await shot(page, '9-user-console-keys');
    await page.getByRole('button', { name: 'New user' }).click();
    const form = page.getByRole('form', { name: 'New user' });
    await form.getByLabel(/^Email/).fill('pat@example.test');
    await form.getByLabel('Set a password now').check();
    await form.getByLabel("New user's password").fill('pat has a passphrase');
    await form.getByRole('button', { name: 'Create user' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: 'Created pat@example.test with the password you set' })
      .waitFor(WAIT);
    const issued = await t.request({
      method: 'POST',
      url: '/token',
      payload: { email: 'pat@example.test', password: 'pat has a passphrase' },
    });
    assert.equal(issued.statusCode, 201, issued.body);
  });

  step('finds users by part of their email or name, a page at a time', async () => {
    for (let i = 1; i <= 26; i++)
      await t.ctx.auth.users.create({ email: `member-${String(i).padStart(2, '0')}@pager.test`, role: 'user' });
    const search = page.getByRole('search');
    await search.getByLabel('Email or name').fill('NEWCOM');
    await search.getByRole('button', { name: 'Search' }).click();
    await page.getByText('1 user', { exact: true }).waitFor(WAIT);
    await page.getByRole('link', { name: INVITED }).waitFor(WAIT);
    await search.getByLabel('Email or name').fill('@pager');
    await search.getByRole('button', { name: 'Search' }).click();
    await page.getByText('26 users', { exact: true }).waitFor(WAIT);
    const pages = page.getByRole('navigation', { name: 'Pages of users' });
    await pages.getByText('1–25 of 26').waitFor(WAIT);
    // Users created in one millisecond are ordered by id, so which member is 26th is not known beforehand.
    const members = page.getByRole('link', { name: /^member-\d\d@pager\.test$/ });
    const firstPage = await members.allInnerTexts();
    assert.equal(firstPage.length, 25);
    await pages.getByRole('button', { name: 'Next' }).click();
    await pages.getByText('26–26 of 26').waitFor(WAIT);
    await members.first().waitFor(WAIT);
    const secondPage = await members.allInnerTexts();
    assert.equal(secondPage.length, 1);
    assert.ok(!firstPage.includes(secondPage[0]!), `${secondPage[0]} was on the first page too`);
    assert.match(page.url(), /search=%40pager&offset=25/);
    await checkAccessibility(page, 'users search');
    await shot(page, '10-users-search');
  });

  step('a refused private webhook target names the setting that allows it', async () => {
    await page.getByRole('link', { name: 'Webhooks' }).click();
    await page.getByRole('button', { name: 'New webhook' }).click();
    await page.getByLabel('Name').fill('Internal');
    await page.getByLabel('Target URL').fill('http://10.0.0.5/hook');
    await page.getByRole('button', { name: 'Create webhook' }).click();
    const problem = page.locator('#hook-url-error');
    await problem.waitFor(WAIT);
    assert.match(await problem.innerText(), /webhooks\.allowPrivateTargets: true/);
    await shot(page, '11-webhook-private-target');
  });
});

// The web console used as a person would, in headless Chromium against a real svc on SQLite listening on
// 127.0.0.1: both ways of signing in, browsing and filtering, creating and editing as a user, a live
// event, a webhook and its delivery, disabling a key, the health view and /docs. axe-core checks each
// view for serious or critical accessibility problems; screenshots are saved for a person to look at.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { existsSync, mkdtempSync, copyFileSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';
import { ensureConsoleBuilt } from '../helpers/console-build.ts';

const CHROMIUM = '/usr/bin/chromium';
const EDITOR_EMAIL = 'edna@example.test';
const EDITOR_PASSWORD = 'correct horse battery staple';
const UMA_EMAIL = 'uma@example.test';
/** A user whose role is `user` and who may also act as `editor` (X-Service-Role). */
const ROLF_EMAIL = 'rolf@example.test';
/** Declared roles: `auditor` is named by no permission, so only the configuration's list can offer it. */
const ROLES = ['auditor', 'editor', 'user'];
const SHOTS = mkdtempSync(join(tmpdir(), 'svc-console-shots-'));
const README_IMAGES = join(import.meta.dirname, '../../docs/images');
/** `CONSOLE_SCREENSHOTS_TO_DOCS=1` refreshes the README's two images; otherwise runs leave the tree alone. */
const TO_DOCS = process.env.CONSOLE_SCREENSHOTS_TO_DOCS === '1';
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const WAIT = { timeout: 15_000 };
const FIRST_RENDER_WAIT = { timeout: 45_000 };

const skip = existsSync(CHROMIUM) ? false : `${CHROMIUM} is not installed: the console's browser tests are skipped`;
if (skip) console.log(`# SKIPPED: ${skip}`);

async function checkAccessibility(page: Page, view: string): Promise<void> {
  // addScriptTag would be an inline script, which the page's CSP refuses (as it should); evaluate is not.
  await page.evaluate(AXE_SOURCE);
  // Browser code as text: the test's TypeScript is compiled without the DOM library.
  const violations = (await page.evaluate(`axe.run(document, { resultTypes: ['violations'] }).then((result) =>
    result.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => v.id + ' (' + v.impact + '): ' + v.nodes.slice(0, 3).map((n) => JSON.stringify(n.target)).join(', ')))`)) as string[];
  assert.deepEqual(violations, [], `accessibility problems on ${view}`);
}

async function shot(page: Page, name: string): Promise<string> {
  const path = join(SHOTS, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  return path;
}

/** The steps build on each other: after one fails, the rest are skipped instead of each timing out. */
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

describe('web console in a browser', { skip }, () => {
  let t: TestApp;
  let base: string;
  let browser: Browser;
  let page: Page;
  let receiver: Server;
  let receiverUrl: string;
  let received = 0;
  let editorKey: string;
  let ednaOtherKey: string;
  let umaKey: string;
  /** The key the console was issued at sign-in, revoked at sign-out. */
  let consoleKey = '';
  const cspViolations: string[] = [];
  /** Every line the page logged: no credential may appear in one. */
  const consoleLines: string[] = [];
  /** `METHOD /path` of every API call the console made, to check each is in /openapi.json. */
  const apiCalls = new Set<string>();
  /** Requests to any other origin (refused): the pages must need none. */
  const foreignRequests: string[] = [];

  before(async () => {
    await ensureConsoleBuilt();
    t = await startTestApp('sqlite', { roles: ROLES });
    await t.ctx.auth.users.create({
      id: 'edna',
      email: EDITOR_EMAIL,
      password: EDITOR_PASSWORD,
      role: 'editor',
      verified: true,
    });
    await t.ctx.auth.users.create({
      id: 'uma',
      email: UMA_EMAIL,
      password: EDITOR_PASSWORD,
      role: 'user',
      verified: true,
    });
    await t.ctx.auth.users.create({
      id: 'rolf',
      email: ROLF_EMAIL,
      name: 'Rolf Rollins',
      password: EDITOR_PASSWORD,
      role: 'user',
      allowedRoles: ['editor'],
      verified: true,
    });
    editorKey = await t.as('editor');
    // A second key of edna's, besides the console's: it must survive her signing out.
    const issued = await t.request({
      method: 'POST',
      url: '/token',
      payload: { email: EDITOR_EMAIL, password: EDITOR_PASSWORD, name: 'ci' },
    });
    ednaOtherKey = `Bearer ${issued.json().key as string}`;
    const umaIssued = await t.request({
      method: 'POST',
      url: '/token',
      payload: { email: UMA_EMAIL, password: EDITOR_PASSWORD, name: 'script' },
    });
    umaKey = `Bearer ${umaIssued.json().key as string}`;
    for (const name of ['News', 'Guides']) {
      await t.request({ method: 'POST', url: '/v1/categories', auth: editorKey, payload: { name } });
    }
    for (const [title, status] of [
      ['Hello world', 'published'],
      ['Draft notes', 'draft'],
      ['Release 1.0', 'published'],
    ]) {
      await t.request({ method: 'POST', url: '/v1/posts', auth: editorKey, payload: { title, status } });
    }
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const address = t.app.server.address();
    if (address === null || typeof address === 'string') throw new Error('not listening on TCP');
    base = `http://127.0.0.1:${address.port}`;
    receiver = createServer((request, response) => {
      request.resume();
      request.on('end', () => {
        received++;
        // /fail stands for a broken receiver: every attempt there fails with 500.
        if (request.url === '/fail') response.writeHead(500).end('broken');
        else response.writeHead(200).end('ok');
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const receiverAddress = receiver.address();
    if (receiverAddress === null || typeof receiverAddress === 'string') throw new Error('receiver not listening');
    receiverUrl = `http://127.0.0.1:${receiverAddress.port}/hook`;
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    // The webhook secret's Copy button writes the clipboard; the test reads it back.
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base });
    // Nothing but this server may be reached: the console must work offline.
    await context.route(/^(?!http:\/\/127\.0\.0\.1:)/, (route) => {
      foreignRequests.push(route.request().url());
      return route.abort();
    });
    page = await context.newPage();
    page.on('console', (message) => {
      consoleLines.push(message.text());
      if (/Content Security Policy/i.test(message.text())) cspViolations.push(message.text());
    });
    page.on('request', (request) => {
      const url = new URL(request.url());
      if (url.origin === base && page.url().includes('/console') && !/^\/(console|docs)(\/|$)/.test(url.pathname))
        apiCalls.add(`${request.method()} ${url.pathname}`);
    });
  });

  after(async () => {
    await browser?.close();
    await new Promise<void>((resolve) => (receiver ? receiver.close(() => resolve()) : resolve()));
    await t?.close();
    console.log(`# console screenshots: ${SHOTS}`);
  });

  step('signs in with email and password, keeping the key in sessionStorage only', async () => {
    const served = await page.goto(`${base}/console`);
    assert.match(served?.headers()['content-security-policy'] ?? '', /script-src 'self';/);
    await checkAccessibility(page, 'sign-in');
    // Keyboard: one tab stop for the sign-in tabs (arrow keys switch them), and a visible focus ring.
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate('document.activeElement.id'), 'tab-user');
    await page.keyboard.press('ArrowRight');
    assert.equal(await page.evaluate('document.activeElement.id'), 'tab-admin');
    await page.keyboard.press('ArrowLeft');
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate('document.activeElement.id'), 'signin-email');
    const outline = (await page.evaluate(
      'getComputedStyle(document.activeElement).outlineStyle + " " + getComputedStyle(document.activeElement).outlineWidth',
    )) as string;
    assert.match(outline, /^solid [1-9]/, 'the focused field shows a focus ring');
    await page.getByLabel('Email', { exact: true }).fill(EDITOR_EMAIL);
    await page.getByLabel('Password', { exact: true }).fill(EDITOR_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByText(`Signed in as ${EDITOR_EMAIL}`).waitFor(WAIT);
    const storage = (await page.evaluate(
      '({ local: localStorage.length, session: sessionStorage.length, url: location.href })',
    )) as { local: number; session: number; url: string };
    assert.equal(storage.local, 0);
    assert.equal(storage.session, 1);
    assert.doesNotMatch(storage.url, /svc_/);
  });

  step('browses, filters and sorts records, with the state in the URL', async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'posts', exact: true }).click();
    await page.getByRole('cell', { name: 'Hello world', exact: true }).waitFor(WAIT);
    assert.match(await page.getByRole('status').first().innerText(), /of 3/);
    await page.getByRole('button', { name: 'Add filter' }).click();
    const operators = (await page
      .getByLabel('Filter 1 operator')
      .locator('option')
      .evaluateAll((options) => options.map((o) => (o as unknown as { value: string }).value))) as string[];
    assert.deepEqual(operators.sort(), [
      'eq',
      'gt',
      'gte',
      'ilike',
      'in',
      'is_not_null',
      'is_null',
      'like',
      'lt',
      'lte',
      'neq',
      'nin',
    ]);
    // The operators are the field's own, as /openapi.json lists them: a boolean has no order and no pattern.
    await page.getByLabel('Filter 1 field').selectOption('published');
    const booleanOperators = page.getByLabel('Filter 1 operator').locator('option');
    await page.waitForFunction("document.querySelectorAll('#filter-op-0 option').length === 6", null, WAIT);
    assert.deepEqual(
      (
        await booleanOperators.evaluateAll((options) => options.map((o) => (o as unknown as { value: string }).value))
      ).sort(),
      ['eq', 'in', 'is_not_null', 'is_null', 'neq', 'nin'],
    );
    await shot(page, 'filter-operators-boolean');
    await page.getByLabel('Filter 1 field').selectOption('status');
    await page.getByLabel('Filter 1 operator').selectOption('eq');
    await page.getByLabel('Filter 1 value').fill('published');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.waitForFunction("location.hash.includes('status__eq=published')", null, WAIT);
    await page.getByText('1–2 of 2').waitFor(WAIT);
    await page.getByRole('button', { name: 'Sort by title' }).click();
    await page.waitForFunction("location.hash.includes('_sort=title')", null, WAIT);
    await page.getByRole('button', { name: 'Sort by title' }).click();
    await page.waitForFunction("location.hash.includes('_sort=-title')", null, WAIT);
    // Descending by title: "Release 1.0" before "Hello world".
    await page.locator('tbody tr').first().getByRole('cell', { name: 'Release 1.0', exact: true }).waitFor(WAIT);
    // Field selection: a column left out is not asked for.
    await page.getByText('Fields', { exact: true }).click();
    await page.getByRole('checkbox', { name: 'body' }).uncheck();
    await page.waitForFunction("location.hash.includes('fields=')", null, WAIT);
    assert.equal(await page.getByRole('columnheader', { name: 'body' }).count(), 0);
    assert.doesNotMatch(decodeURIComponent(new URL(page.url()).hash), /fields=[^&]*body/);
    // A shared link opens the same view.
    const shared = page.url();
    await page.goto('about:blank');
    await page.goto(shared);
    await page.getByText('1–2 of 2').waitFor(WAIT);
    assert.equal(await page.getByRole('columnheader', { name: 'body' }).count(), 0);
    // Paging: one per page, the total stays, Next moves on.
    await page.goto(`${shared}&page%5Blimit%5D=1`);
    await page.getByText('1–1 of 2').waitFor(WAIT);
    await page.getByRole('button', { name: 'Next' }).click();
    await page.getByText('2–2 of 2').waitFor(WAIT);
    await page.goto(shared);
    await page.getByText('1–2 of 2').waitFor(WAIT);
    await checkAccessibility(page, 'records');
    const records = await shot(page, 'records');
    if (TO_DOCS) copyFileSync(records, join(README_IMAGES, 'console-records.png'));
  });

  step('creates a record (the API validation error shown at its field) and edits it', async () => {
    await page.getByRole('button', { name: 'New record' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel(/^title/).waitFor(WAIT);
    await dialog.getByLabel(/^views/).fill('-5');
    await dialog.getByRole('button', { name: 'Create' }).click();
    await dialog.locator('#error-title').waitFor(WAIT);
    assert.match(await dialog.locator('#error-title').innerText(), /required/);
    assert.match(await dialog.locator('#error-views').innerText(), /./);
    await checkAccessibility(page, 'record form with errors');
    await shot(page, 'record-errors');
    await dialog.getByLabel(/^title/).fill('Written in the console');
    await dialog.getByLabel(/^views/).fill('7');
    await dialog.getByLabel(/^category_id/).fill('guid');
    await dialog.getByRole('option', { name: 'Guides', exact: true }).click();
    await dialog.getByRole('button', { name: 'Create' }).click();
    await dialog.getByRole('heading', { name: 'posts record', exact: true }).waitFor(WAIT);
    await dialog.getByRole('link', { name: 'Guides' }).waitFor(WAIT);
    assert.match(
      (await dialog.getByRole('link', { name: 'Guides' }).getAttribute('href')) ?? '',
      /^#\/records\/categories\?record=[0-9a-f-]{36}$/,
    );
    await dialog.getByRole('button', { name: 'Edit' }).click();
    await dialog.getByLabel(/^title/).fill('Edited in the console');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await dialog.getByText('Edited in the console').waitFor(WAIT);
    const list = await t.request({
      method: 'GET',
      url: '/v1/posts?title=Edited%20in%20the%20console',
      auth: editorKey,
    });
    assert.equal(list.json().meta.total, 1);
    await checkAccessibility(page, 'record panel');
    await shot(page, 'record-panel');
    // Keyboard: Tab stays inside the dialog, Escape closes it.
    for (let i = 0; i < 30; i++) await page.keyboard.press('Tab');
    assert.equal(await page.evaluate('!!document.activeElement.closest("[role=dialog]")'), true);
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached', ...WAIT });
  });

  step('shows created and updated events live, with the changed fields highlighted', async () => {
    await page.goto(`${base}/console#/live/posts`);
    await page.getByRole('status').filter({ hasText: 'connected' }).waitFor(WAIT);
    const created = await t.request({
      method: 'POST',
      url: '/v1/posts',
      auth: editorKey,
      payload: { title: 'Live one' },
    });
    const id = created.json().data.id as string;
    await t.request({ method: 'PATCH', url: `/v1/posts/${id}`, auth: editorKey, payload: { status: 'published' } });
    await page.locator('tr.live-event[data-kind="updated"] td.changed').first().waitFor(WAIT);
    assert.equal(await page.locator('tr.live-event[data-kind="created"]').count(), 1);
    assert.match(
      await page.locator('tr.live-event[data-kind="updated"] td.changed').innerText(),
      /^published\s*\(changed\)$/,
    );
    // A dropped connection: the view reconnects with Last-Event-ID and shows what happened meanwhile, once.
    t.app.server.closeAllConnections();
    await t.request({ method: 'POST', url: '/v1/posts', auth: editorKey, payload: { title: 'While away' } });
    await page.locator('tr.live-event[data-kind="created"]').filter({ hasText: 'While away' }).waitFor(WAIT);
    assert.equal(await page.locator('tr.live-event[data-kind="created"]').count(), 2);
    await checkAccessibility(page, 'live');
    await shot(page, 'live');
  });

  step("shows a resource's fields, soft delete and JSON Schema", async () => {
    await page.goto(`${base}/console#/resources/posts`);
    await page.getByRole('cell', { name: 'category_id' }).waitFor(WAIT);
    assert.match(await page.getByRole('row', { name: /category_id/ }).innerText(), /categories/);
    await page.getByText('Soft delete: on').waitFor(WAIT);
    assert.equal(
      await page
        .getByRole('link', { name: /API reference/ })
        .last()
        .getAttribute('href'),
      '/docs#tag/posts',
    );
    await page.getByRole('button', { name: 'Show the JSON Schema' }).click();
    assert.match(await page.getByLabel('JSON Schema of posts').inputValue(), /"\$id": "\/v1\/posts\/schema"/);
    await checkAccessibility(page, 'resource');
    await shot(page, 'resource');
  });

  step('offers a user with a narrower role only the fields and actions the role allows', async () => {
    // A second tab of its own (sessionStorage is per tab), signed in as uma, whose role is `user`.
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    await context.route(/^(?!http:\/\/127\.0\.0\.1:)/, (route) => route.abort());
    const tab = await context.newPage();
    try {
      await tab.goto(`${base}/console`);
      await tab.getByLabel('Email', { exact: true }).fill(UMA_EMAIL);
      await tab.getByLabel('Password', { exact: true }).fill(EDITOR_PASSWORD);
      await tab.getByRole('button', { name: 'Sign in' }).click();
      await tab.getByText(`Signed in as ${UMA_EMAIL}`).waitFor(WAIT);
      await tab.goto(`${base}/console#/resources/posts`);
      const access = tab.getByRole('list', { name: 'What you may do' });
      await access.getByText('Create: title, body, status, category_id').waitFor(WAIT);
      await access.getByText('Delete: allowed').waitFor(WAIT);
      await checkAccessibility(tab, 'resource (user role)');
      await tab.goto(`${base}/console#/records/posts`);
      await tab.getByRole('button', { name: 'New record' }).click();
      const dialog = tab.getByRole('dialog');
      await dialog.getByLabel(/^title/).waitFor(WAIT);
      // Exactly the role's create fields: no views, no author_id (the API sets that one).
      const labels = await dialog
        .locator('form label')
        .evaluateAll((nodes) => nodes.map((n) => (n as unknown as { htmlFor: string }).htmlFor));
      assert.deepEqual(
        labels.map((id) => id.replace(/^input-/, '')),
        ['title', 'body', 'status', 'category_id'],
      );
      await dialog.getByLabel(/^title/).fill('Uma writes');
      await dialog.getByRole('button', { name: 'Create' }).click();
      await dialog.getByRole('heading', { name: 'posts record', exact: true }).waitFor(WAIT);
      const mine = await t.request({ method: 'GET', url: '/v1/posts?title=Uma%20writes', auth: umaKey });
      assert.equal(mine.json().meta.total, 1);
      assert.equal(mine.json().data[0].attributes.author_id, 'uma');
      // Categories: read only for this role.
      await tab.goto(`${base}/console#/records/categories`);
      await tab.getByRole('cell', { name: 'News' }).waitFor(WAIT);
      assert.equal(await tab.getByRole('button', { name: 'New record' }).count(), 0);
      await tab.getByRole('button', { name: 'Sign out' }).click();
      await tab.getByRole('button', { name: 'Sign in' }).waitFor(WAIT);
    } finally {
      await context.close();
    }
  });

  step('keeps a half-filled form when the session ends, and switches roles from the header', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    await context.route(/^(?!http:\/\/127\.0\.0\.1:)/, (route) => route.abort());
    const tab = await context.newPage();
    const signIn = async () => {
      await tab.getByLabel('Email', { exact: true }).fill(ROLF_EMAIL);
      await tab.getByLabel('Password', { exact: true }).fill(EDITOR_PASSWORD);
      await tab.getByRole('button', { name: 'Sign in' }).click();
      await tab.getByText(`Signed in as ${ROLF_EMAIL}`).waitFor(WAIT);
    };
    try {
      await tab.goto(`${base}/console`);
      await signIn();
      const header = tab.getByRole('region', { name: 'Who you are' });
      await header.getByText('(Rolf Rollins)').waitFor(WAIT);
      const acting = header.getByLabel('Acting as');
      await acting.waitFor(WAIT);
      assert.equal(await acting.inputValue(), 'user');
      // A post half written, then the console's key is revoked by an operator mid-session.
      await tab.goto(`${base}/console#/records/posts?new=1`);
      const dialog = tab.getByRole('dialog');
      await dialog.getByLabel(/^title/).fill('Half written');
      await dialog.getByLabel(/^body/).fill('First line\nsecond line');
      const keys = await t.request({
        method: 'GET',
        url: '/admin/keys?userId=rolf&includeConsole=true',
        auth: t.admin,
      });
      const consoleKeys = (keys.json().data as { id: string; attributes: { console: boolean } }[]).filter(
        (k) => k.attributes.console,
      );
      assert.equal(consoleKeys.length, 1, 'one console key per sign-in');
      const revoked = await t.request({ method: 'DELETE', url: `/admin/keys/${consoleKeys[0]!.id}`, auth: t.admin });
      assert.equal(revoked.statusCode, 204);
      await dialog.getByRole('button', { name: 'Create' }).click();
      await tab.getByRole('alert').filter({ hasText: 'Your session ended — sign in again' }).waitFor(WAIT);
      await tab.getByRole('heading', { name: 'Sign in to svc' }).waitFor(WAIT);
      await checkAccessibility(tab, 'session ended');
      await shot(tab, 'session-ended');
      await signIn();
      // Back on the same form with what was typed.
      await tab.getByText('the form you were filling in is as you left it').waitFor(WAIT);
      assert.match(tab.url(), /#\/records\/posts\?new=1$/);
      assert.equal(
        await tab
          .getByRole('dialog')
          .getByLabel(/^title/)
          .inputValue(),
        'Half written',
      );
      assert.equal(await tab.getByRole('dialog').getByLabel(/^body/).inputValue(), 'First line\nsecond line');
      await shot(tab, 'session-resumed');
      await tab.getByRole('dialog').getByRole('button', { name: 'Create' }).click();
      await tab.getByRole('dialog').getByRole('heading', { name: 'posts record', exact: true }).waitFor(WAIT);
      const saved = await t.request({ method: 'GET', url: '/v1/posts?title=Half%20written', auth: editorKey });
      assert.equal(saved.json().meta.total, 1);
      // An edit in progress is kept too: the record's form is opened again with the changed title.
      await tab.getByRole('dialog').getByRole('button', { name: 'Edit', exact: true }).click();
      await tab
        .getByRole('dialog')
        .getByLabel(/^title/)
        .fill('Half edited');
      const again = await t.request({
        method: 'GET',
        url: '/admin/keys?userId=rolf&includeConsole=true',
        auth: t.admin,
      });
      for (const key of again.json().data as { id: string }[])
        await t.request({ method: 'DELETE', url: `/admin/keys/${key.id}`, auth: t.admin });
      await tab.getByRole('dialog').getByRole('button', { name: 'Save', exact: true }).click();
      await tab.getByRole('alert').filter({ hasText: 'Your session ended — sign in again' }).waitFor(WAIT);
      await signIn();
      await tab.getByRole('dialog').getByRole('heading', { name: 'Edit posts record' }).waitFor(WAIT);
      await tab.getByText('the form you were filling in is as you left it').waitFor(WAIT);
      assert.equal(
        await tab
          .getByRole('dialog')
          .getByLabel(/^title/)
          .inputValue(),
        'Half edited',
      );
      await tab.getByRole('dialog').getByRole('button', { name: 'Save', exact: true }).click();
      await tab.getByRole('dialog').getByRole('heading', { name: 'posts record', exact: true }).waitFor(WAIT);
      const edited = await t.request({ method: 'GET', url: '/v1/posts?title=Half%20edited', auth: editorKey });
      assert.equal(edited.json().meta.total, 1);
      await tab.getByRole('button', { name: 'Close panel' }).click();
      // As `user`, categories are read only; as `editor` they may be created, and every request says so.
      await tab.goto(`${base}/console#/records/categories`);
      await tab.getByRole('cell', { name: 'News' }).waitFor(WAIT);
      assert.equal(await tab.getByRole('button', { name: 'New record' }).count(), 0);
      const withRole = tab.waitForRequest(
        (request) => request.url().includes('/v1/categories') && request.headers()['x-service-role'] === 'editor',
      );
      await tab.getByRole('region', { name: 'Who you are' }).getByLabel('Acting as').selectOption('editor');
      await withRole;
      await tab.getByRole('button', { name: 'New record' }).waitFor(WAIT);
      assert.equal(
        await tab.getByRole('region', { name: 'Who you are' }).getByLabel('Acting as').inputValue(),
        'editor',
      );
      await checkAccessibility(tab, 'acting as editor');
      await shot(tab, 'role-switched');
      await tab.getByRole('button', { name: 'Sign out' }).click();
      await tab.getByRole('button', { name: 'Sign in' }).waitFor(WAIT);
    } finally {
      await context.close();
    }
  });

  step(
    "signs out, which revokes the console's key, then signs in with the admin token, which cannot create records",
    async () => {
      const stored = (await page.evaluate("sessionStorage.getItem('svc.console.session')")) as string;
      consoleKey = `Bearer ${(JSON.parse(stored) as { token: string }).token}`;
      assert.equal((await t.request({ method: 'GET', url: '/me', auth: consoleKey })).statusCode, 200);
      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.getByRole('tab', { name: 'Admin token' }).waitFor(WAIT);
      assert.equal((await page.evaluate('sessionStorage.length')) as number, 0);
      const refused = await t.request({ method: 'GET', url: '/me', auth: consoleKey });
      assert.equal(refused.statusCode, 401);
      assert.equal(refused.json().errors[0].code, 'INVALID_API_KEY');
      // Only the console's key: edna's other key still works.
      assert.equal((await t.request({ method: 'GET', url: '/me', auth: ednaOtherKey })).statusCode, 200);
      await page.getByRole('tab', { name: 'Admin token' }).click();
      await page.locator('#signin-token').fill(t.admin.replace('Bearer ', ''));
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByText('Signed in as administrator').waitFor(WAIT);
      await page.goto(`${base}/console#/records/posts`);
      await page.getByRole('cell', { name: 'Hello world', exact: true }).waitFor(WAIT);
      assert.equal(await page.getByRole('button', { name: 'New record' }).count(), 0);
    },
  );

  step('shows the administrator the permission matrix from /admin/resources', async () => {
    await page.goto(`${base}/console#/resources/posts`);
    const matrix = page.getByRole('table', { name: 'Permissions of posts by role' });
    await matrix.waitFor(WAIT);
    assert.match(await matrix.getByRole('row', { name: /^editor/ }).innerText(), /editor/);
    assert.match(await matrix.getByRole('row', { name: /^user/ }).innerText(), /user/);
    await checkAccessibility(page, 'resource (admin)');
    await shot(page, 'resource-admin');
  });

  step('deletes a record after confirming; the administrator sees the soft-deleted rows', async () => {
    await page.goto(`${base}/console#/records/posts`);
    await page.getByRole('cell', { name: 'Draft notes', exact: true }).waitFor(WAIT);
    await page
      .getByRole('row', { name: /Draft notes/ })
      .getByRole('link')
      .first()
      .click();
    const dialog = page.getByRole('dialog');
    await dialog.getByRole('button', { name: 'Delete' }).click();
    await dialog.getByText('Delete this record (soft delete)?').waitFor(WAIT);
    await dialog.getByRole('button', { name: 'Yes, delete' }).click();
    await dialog.waitFor({ state: 'detached', ...WAIT });
    await page.getByRole('cell', { name: 'Draft notes', exact: true }).waitFor({ state: 'detached', ...WAIT });
    await page.getByRole('button', { name: 'Show deleted' }).click();
    await page.locator('tr.deleted-record').filter({ hasText: 'Draft notes' }).waitFor(WAIT);
    assert.equal(await page.getByRole('button', { name: 'Show deleted' }).getAttribute('aria-pressed'), 'true');
    assert.match(page.url(), /deleted=1/);
    await checkAccessibility(page, 'deleted records');
    await shot(page, 'deleted');
  });

  step('creates a webhook, shows its secret once and its delivery', async () => {
    await page.goto(`${base}/console#/webhooks`);
    await page.getByRole('button', { name: 'New webhook' }).click();
    await page.getByLabel('Name').fill('Audit');
    await page.getByLabel('Target URL').fill('not a url');
    await page.getByLabel(/^Events/).fill('posts.*');
    await page.getByRole('button', { name: 'Create webhook' }).click();
    await page.locator('#hook-url-error').waitFor(WAIT);
    await page.getByLabel('Target URL').fill(receiverUrl);
    await page.getByRole('button', { name: 'Create webhook' }).click();
    await page.locator('#webhook-secret').waitFor(WAIT);
    assert.match(await page.locator('#webhook-secret').innerText(), /\S{16,}/);
    await t.request({ method: 'POST', url: '/v1/posts', auth: editorKey, payload: { title: 'Delivered' } });
    await page.locator('tr.delivery[data-status="success"]').first().waitFor(WAIT);
    assert.ok(received >= 1);
    // The receiver's answer: status, time taken and body.
    const delivered = page.locator('tr.delivery[data-status="success"]').first();
    assert.match(await delivered.innerText(), /\b200\b/);
    await delivered.getByText(/^Response body/).click();
    await delivered.locator('pre').first().filter({ hasText: /^ok$/ }).waitFor(WAIT);
    await checkAccessibility(page, 'webhooks');
    const webhooks = await shot(page, 'webhooks');
    if (TO_DOCS) copyFileSync(webhooks, join(README_IMAGES, 'console-webhooks.png'));
    await page.getByRole('button', { name: 'I have copied it' }).click();
    assert.equal(await page.locator('#webhook-secret').count(), 0);
    const before = received;
    await page.getByRole('button', { name: 'Send test ping' }).click();
    await page.locator('tr.delivery[data-status="success"]').filter({ hasText: 'webhook.ping' }).waitFor(WAIT);
    await page.getByRole('button', { name: 'Redeliver posts.created' }).first().click();
    await page.getByText('Redelivery queued.').waitFor(WAIT);
    await page.locator('tr.delivery').filter({ hasText: 'posts.created' }).nth(1).waitFor(WAIT);
    assert.ok(received >= before + 1);
    await page.getByRole('button', { name: 'Disable Audit' }).click();
    await page.getByRole('row', { name: /Audit/ }).getByText('disabled').waitFor(WAIT);
    await page.getByRole('button', { name: 'Edit Audit' }).click();
    await page.getByLabel('Name').fill('Audit trail');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByRole('link', { name: 'Audit trail' }).waitFor(WAIT);
    await page.getByRole('button', { name: 'Delete Audit trail' }).click();
    await page.getByRole('button', { name: 'Yes, delete' }).click();
    await page.getByText('Deleted Audit trail.').waitFor(WAIT);
    assert.equal((await t.request({ method: 'GET', url: '/admin/webhooks', auth: t.admin })).json().meta.total, 0);
  });

  step('names the webhook a secret belongs to, copies it, and reads a failed attempt as failed', async () => {
    await page.goto(`${base}/console#/webhooks`);
    await page.getByRole('button', { name: 'New webhook' }).click();
    await page.getByLabel('Name').fill('Broken receiver');
    const failing = receiverUrl.replace(/\/hook$/, '/fail');
    await page.getByLabel('Target URL').fill(failing);
    await page.getByLabel(/^Events/).fill('comments.*');
    await page.getByRole('button', { name: 'Create webhook' }).click();
    const banner = page.locator('.notice.secret');
    await banner.waitFor(WAIT);
    assert.match(
      await banner.innerText(),
      new RegExp(`Signing secret of Broken receiver \\(${failing.replace(/[.]/g, '\\.')}, id `),
    );
    const secret = (await page.locator('#webhook-secret').innerText()).trim();
    await banner.getByRole('button', { name: 'Copy' }).click();
    await banner.getByText('Copied to the clipboard.').waitFor(WAIT);
    assert.equal(await page.evaluate('navigator.clipboard.readText()'), secret);
    await page.getByRole('button', { name: 'Send test ping' }).click();
    const failed = page.locator('tr.delivery[data-status="failed"]').first();
    await failed.waitFor(WAIT);
    const status = await failed.locator('td').nth(1).innerText();
    assert.match(status, /^failed \(HTTP 500\)/);
    assert.doesNotMatch(status, /pending/);
    await checkAccessibility(page, 'webhooks with a failed attempt');
    await shot(page, 'webhook-failed-attempt');
    await page.getByRole('button', { name: 'I have copied it' }).click();
    await page.getByRole('button', { name: 'Delete Broken receiver' }).click();
    await page.getByRole('button', { name: 'Yes, delete' }).click();
    await page.getByText('Deleted Broken receiver.').waitFor(WAIT);
  });

  step("changes a user's role, offering only the defined roles", async () => {
    await page.goto(`${base}/console#/users`);
    await page.getByRole('link', { name: UMA_EMAIL }).click();
    const picker = page.getByLabel('Primary role');
    await picker
      .locator('option')
      .nth(ROLES.length - 1)
      .waitFor({ state: 'attached', ...WAIT });
    // Exactly the configuration's roles: an undefined one is not there to be chosen.
    assert.deepEqual(await picker.locator('option').allTextContents(), ROLES);
    await assert.rejects(picker.selectOption('owner', { timeout: 500 }));
    await picker.selectOption('editor');
    await page.getByRole('checkbox', { name: 'auditor' }).check();
    await page.getByRole('button', { name: 'Save roles' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: `${UMA_EMAIL} now has the role editor` })
      .waitFor(WAIT);
    const user = (await t.request({ method: 'GET', url: '/admin/users/uma', auth: t.admin })).json().data.attributes;
    assert.equal(user.primaryRole, 'editor');
    assert.deepEqual(JSON.parse(user.allowedRoles), ['auditor']);
    // The user's existing key acts with the new role on its next request.
    assert.equal((await t.request({ method: 'GET', url: '/me', auth: umaKey })).json().data.attributes.role, 'editor');
    await page
      .getByRole('row', { name: new RegExp(UMA_EMAIL) })
      .getByRole('cell', { name: 'auditor' })
      .waitFor(WAIT);
  });

  step('searches users, shows keys with usage but no secret, disables and deletes a key', async () => {
    await page.goto(`${base}/console#/users`);
    await page.getByRole('search').getByLabel('Email').fill(EDITOR_EMAIL);
    await page.getByRole('button', { name: 'Search' }).click();
    await page.getByText('1 user', { exact: true }).waitFor(WAIT);
    assert.match(await page.getByRole('row', { name: new RegExp(EDITOR_EMAIL) }).innerText(), /verified/);
    await page.getByRole('link', { name: EDITOR_EMAIL }).click();
    await page.locator('tr.api-key').first().waitFor(WAIT);
    // Signing out deleted the console's key: the one left is the other.
    assert.equal(await page.locator('tr.api-key').filter({ hasText: 'console' }).count(), 0);
    const row = page.locator('tr.api-key').filter({ hasText: 'ci' });
    await row.getByRole('button', { name: /^Disable/ }).click();
    await row.getByText('disabled').waitFor(WAIT);
    const keys = await t.request({ method: 'GET', url: '/admin/keys?userId=edna', auth: t.admin });
    const ciKey = keys.json().data.find((k: { attributes: { name: string } }) => k.attributes.name === 'ci');
    assert.equal(ciKey.attributes.enabled, false);
    const refused = await t.request({ method: 'GET', url: '/me', auth: ednaOtherKey });
    assert.equal(refused.json().errors[0].code, 'API_KEY_DISABLED');
    // Usage is shown (the key made requests above); the secret never is.
    assert.match(await row.locator('td').nth(3).innerText(), /^[1-9]\d*$/);
    assert.equal((await page.content()).includes(ednaOtherKey.replace('Bearer ', '')), false);
    await row.getByRole('button', { name: /^Delete key/ }).click();
    await row.getByRole('button', { name: 'Yes, delete' }).click();
    await page.getByText('Key deleted.').waitFor(WAIT);
    assert.equal(
      (await t.request({ method: 'GET', url: '/admin/keys?userId=edna', auth: t.admin })).json().meta.total,
      0,
    );
    await checkAccessibility(page, 'users');
    await shot(page, 'users');
  });

  step('shows readiness, version and metrics', async () => {
    await page.goto(`${base}/console#/health`);
    await page.getByRole('status').filter({ hasText: 'ready' }).waitFor(WAIT);
    await page.getByText('HTTP requests').waitFor(WAIT);
    for (const figure of ['Version', 'Uptime', '5xx answers', 'Open streams', 'Webhook queue'])
      await page.getByText(figure, { exact: true }).waitFor(WAIT);
    await checkAccessibility(page, 'health');
    await shot(page, 'health');
  });

  step('fits a 390 px phone screen', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${base}/console#/records/posts`);
    await page.getByRole('cell', { name: 'Hello world', exact: true }).waitFor(WAIT);
    // Closed, the menu is one slim bar above the records.
    const bar = (await page.evaluate("document.querySelector('.sidebar').getBoundingClientRect().height")) as number;
    assert.ok(bar < 100, `the closed menu bar is ${bar}px tall`);
    assert.equal(await page.getByRole('button', { name: 'Sign out' }).isVisible(), false);
    await page.getByRole('button', { name: 'Menu' }).click();
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Webhooks' }).waitFor(WAIT);
    await page.getByRole('button', { name: 'Sign out' }).waitFor(WAIT);
    await page.getByRole('button', { name: 'Menu' }).click();
    const overflow = (await page.evaluate('document.documentElement.scrollWidth - window.innerWidth')) as number;
    assert.ok(overflow <= 1, `the page is ${overflow}px wider than the screen`);
    await checkAccessibility(page, 'records on a phone');
    await shot(page, 'records-phone');
    await page.setViewportSize({ width: 1280, height: 800 });
  });

  step('renders the API reference at /docs from this server alone', async () => {
    await page.goto(`${base}/docs`);
    // The reference renders every operation of the document on its first load: on a machine busy with
    // the rest of the suite that has taken longer than the other pages' wait.
    await page.getByText('List categories records').first().waitFor(FIRST_RENDER_WAIT);
    // "Try it" sends requests to this server, with the bearer scheme preselected.
    await page.getByText(base, { exact: true }).first().waitFor(WAIT);
    await page.getByText('Bearer Token').first().waitFor(WAIT);
    // Try it: a real request from the reference to this server, with the key pasted as the bearer token.
    await page
      .getByRole('button', { name: /Test Request/ })
      .first()
      .click();
    await page.getByPlaceholder('Token').last().fill(editorKey.replace('Bearer ', ''));
    // Waited for from the click on: typing into the reference can be slow on a busy machine.
    const sent = page.waitForRequest((request) => request.url().startsWith(`${base}/v1/categories`), WAIT);
    const answered = page.waitForResponse((response) => response.url().startsWith(`${base}/v1/categories`), WAIT);
    await page.getByRole('button', { name: /^Send/ }).first().click();
    assert.equal((await sent).headers().authorization, editorKey);
    assert.notEqual((await answered).status(), 401);
    // The viewport only: the whole reference is a page many thousands of pixels long.
    await page.screenshot({ path: join(SHOTS, 'docs.png') });
    assert.deepEqual(cspViolations, []);
  });

  step('called only endpoints /openapi.json describes, and logged no credential', async () => {
    const document = (await t.request({ method: 'GET', url: '/openapi.json' })).json();
    const operations = Object.entries(document.paths as Record<string, Record<string, unknown>>).flatMap(
      ([path, item]) =>
        Object.keys(item).map((method) => ({
          method: method.toUpperCase(),
          pattern: new RegExp(`^${path.replace(/\{[^}]+\}/g, '[^/]+')}$`),
        })),
    );
    const undocumented = [...apiCalls].filter((call) => {
      const [method, path] = call.split(' ') as [string, string];
      return !operations.some((operation) => operation.method === method && operation.pattern.test(path));
    });
    assert.deepEqual(undocumented, []);
    assert.deepEqual(
      foreignRequests.filter((url) => !url.startsWith('data:')),
      [],
      'requests to other origins',
    );
    for (const used of [
      'POST /token',
      'DELETE /me/key',
      'GET /admin/roles',
      'GET /admin/resources/posts/deleted',
      'GET /metrics',
    ])
      assert.ok(apiCalls.has(used), used);
    for (const credential of [consoleKey, t.admin, editorKey]) {
      const secret = credential.replace('Bearer ', '');
      assert.equal(
        consoleLines.some((line) => line.includes(secret)),
        false,
      );
    }
  });
});

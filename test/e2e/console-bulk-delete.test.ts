// The console's bulk delete in headless Chromium against a real svc on SQLite and PostgreSQL: rows
// ticked on a list go in one atomic request (POST /v1/operations) after a confirmation; a refusal
// deletes nothing and is shown at the record it names; a caller who may not delete gets no checkboxes.
// Screenshots are saved for a person to look at.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';
import { testDialects } from '../helpers/test-databases.ts';
import { ensureConsoleBuilt } from '../helpers/console-build.ts';

const CHROMIUM = '/usr/bin/chromium';
const PASSWORD = 'correct horse battery staple';
const SHOTS = mkdtempSync(join(tmpdir(), 'svc-console-bulk-'));
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const WAIT = { timeout: 15_000 };

const skip = existsSync(CHROMIUM) ? false : `${CHROMIUM} is not installed: the console's browser tests are skipped`;
if (skip) console.log(`# SKIPPED: ${skip}`);

async function checkAccessibility(page: Page, view: string): Promise<void> {
  await page.evaluate(AXE_SOURCE);
  const violations = (await page.evaluate(`axe.run(document, { resultTypes: ['violations'] }).then((result) =>
    result.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => v.id + ' (' + v.impact + '): ' + v.nodes.slice(0, 3).map((n) => JSON.stringify(n.target)).join(', ')))`)) as string[];
  assert.deepEqual(violations, [], `accessibility problems on ${view}`);
}

for (const dialect of testDialects()) {
  describe(`console bulk delete (${dialect})`, { skip }, () => {
    let t: TestApp;
    let base: string;
    let browser: Browser;
    let editorKey: string;
    /** `METHOD /path` of every write the page sent to the API. */
    const writes: string[] = [];

    const names = async (resource: string): Promise<string[]> => {
      const list = await t.request({ method: 'GET', url: `/v1/${resource}?_sort=name`, auth: editorKey });
      return (list.json().data as { attributes: { name: string } }[]).map((item) => item.attributes.name);
    };

    async function signedIn(email: string): Promise<{ context: BrowserContext; page: Page }> {
      const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
      await context.route(/^(?!http:\/\/127\.0\.0\.1:)/, (route) => route.abort());
      const page = await context.newPage();
      page.on('request', (request) => {
        const url = new URL(request.url());
        if (request.method() !== 'GET' && url.pathname.startsWith('/v1/'))
          writes.push(`${request.method()} ${url.pathname}`);
      });
      await page.goto(`${base}/console`);
      await page.getByLabel('Email', { exact: true }).fill(email);
      await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByText(`Signed in as ${email}`).waitFor(WAIT);
      return { context, page };
    }

    before(async () => {
      await ensureConsoleBuilt();
      t = await startTestApp(dialect);
      await t.ctx.auth.users.create({
        id: 'edna',
        email: 'edna@example.test',
        password: PASSWORD,
        role: 'editor',
        verified: true,
      });
      await t.ctx.auth.users.create({
        id: 'uma',
        email: 'uma@example.test',
        password: PASSWORD,
        role: 'user',
        verified: true,
      });
      editorKey = await t.as('editor');
      const ids = new Map<string, string>();
      for (const name of ['Alpha', 'Beta', 'Gamma', 'Held']) {
        const created = await t.request({ method: 'POST', url: '/v1/categories', auth: editorKey, payload: { name } });
        assert.equal(created.statusCode, 201, created.body);
        ids.set(name, created.json().data.id as string);
      }
      // A post refers to Held (onDelete: restrict): the database refuses to delete it.
      const post = await t.request({
        method: 'POST',
        url: '/v1/posts',
        auth: editorKey,
        payload: { title: 'Holds Held', status: 'published', category_id: ids.get('Held') },
      });
      assert.equal(post.statusCode, 201, post.body);
      await t.app.listen({ port: 0, host: '127.0.0.1' });
      const address = t.app.server.address();
      if (address === null || typeof address === 'string') throw new Error('not listening on TCP');
      base = `http://127.0.0.1:${address.port}`;
      browser = await chromium.launch({
        executablePath: CHROMIUM,
        args: [
          '--headless',
          '--no-sandbox',
          '--disable-gpu',
          '--no-first-run',
          '--disable-background-networking',
          '--disable-component-update',
          '--disable-sync',
        ],
      });
    });

    after(async () => {
      await browser?.close();
      await t?.close();
      console.log(`# console bulk delete screenshots: ${SHOTS}`);
    });

    it('deletes the ticked records in one atomic request, or none with the refusal shown at its record', async () => {
      const { context, page } = await signedIn('edna@example.test');
      try {
        await page.goto(`${base}/console#/records/categories?_sort=name`);
        await page.getByRole('cell', { name: 'Held', exact: true }).waitFor(WAIT);
        // /v1/operations is in /openapi.json beside the resources, but it is not one.
        const navigation = page.getByRole('navigation', { name: 'Main' });
        await navigation.getByRole('link', { name: 'categories', exact: true }).waitFor(WAIT);
        assert.equal(await navigation.getByRole('link', { name: 'operations', exact: true }).count(), 0);
        // Nothing ticked, nothing offered.
        assert.equal(await page.getByRole('button', { name: /selected$/ }).count(), 0);
        await page.getByRole('checkbox', { name: 'Select Alpha' }).check();
        await page.getByRole('checkbox', { name: 'Select Held' }).check();
        await page.getByRole('button', { name: 'Delete 2 selected' }).click();
        await page.getByRole('alert').filter({ hasText: 'Delete 2 records?' }).waitFor(WAIT);
        await page.screenshot({ path: join(SHOTS, `${dialect}-bulk-confirm.png`), fullPage: true });
        writes.length = 0;
        await page.getByRole('button', { name: 'Yes, delete 2' }).click();
        const refusal = page.getByRole('alert', { name: 'Bulk delete refused' });
        await refusal.waitFor(WAIT);
        assert.match(await refusal.innerText(), /Nothing was deleted/);
        // The refusal names Held, the second operation, and not Alpha.
        assert.match(await refusal.locator('li').first().innerText(), /^Held: .*referenced/);
        assert.equal(await refusal.locator('li').count(), 1);
        assert.equal(await page.getByRole('checkbox', { name: 'Select Held' }).getAttribute('aria-invalid'), 'true');
        assert.equal(await page.getByRole('checkbox', { name: 'Select Alpha' }).getAttribute('aria-invalid'), null);
        assert.deepEqual(writes, ['POST /v1/operations']);
        assert.deepEqual(await names('categories'), ['Alpha', 'Beta', 'Gamma', 'Held']);
        await checkAccessibility(page, 'bulk delete refused');
        await page.screenshot({ path: join(SHOTS, `${dialect}-bulk-refused.png`), fullPage: true });

        // Another selection starts over; this one is allowed, and goes as one request too.
        await page.getByRole('checkbox', { name: 'Select Held' }).uncheck();
        assert.equal(await refusal.count(), 0);
        await page.getByRole('checkbox', { name: 'Select Beta' }).check();
        await page.getByRole('button', { name: 'Delete 2 selected' }).click();
        // Keeping them deletes nothing.
        await page.getByRole('button', { name: 'Keep them' }).click();
        await page.getByRole('button', { name: 'Delete 2 selected' }).click();
        writes.length = 0;
        await page.getByRole('button', { name: 'Yes, delete 2' }).click();
        await page.getByRole('cell', { name: 'Alpha', exact: true }).waitFor({ state: 'detached', ...WAIT });
        await page.getByRole('cell', { name: 'Beta', exact: true }).waitFor({ state: 'detached', ...WAIT });
        assert.deepEqual(writes, ['POST /v1/operations']);
        assert.deepEqual(await names('categories'), ['Gamma', 'Held']);
        assert.equal(await page.getByRole('button', { name: /selected$/ }).count(), 0);

        // Select all on the page ticks every row shown.
        await page.getByRole('checkbox', { name: 'Select all on this page' }).check();
        await page.getByRole('button', { name: 'Delete 2 selected' }).waitFor(WAIT);
        await checkAccessibility(page, 'bulk delete selection');
        await page.screenshot({ path: join(SHOTS, `${dialect}-bulk-all.png`), fullPage: true });
      } finally {
        await context.close();
      }
    });

    it('offers no selection to a caller who may not delete the resource', async () => {
      const { context, page } = await signedIn('uma@example.test');
      try {
        // Categories are read-only for the user role.
        await page.goto(`${base}/console#/records/categories`);
        await page.getByRole('cell', { name: 'Gamma', exact: true }).waitFor(WAIT);
        assert.equal(await page.getByRole('checkbox', { name: /^Select/ }).count(), 0);
        // Posts the role may delete: the checkboxes are there.
        await page.goto(`${base}/console#/records/posts`);
        await page.getByRole('cell', { name: 'Holds Held', exact: true }).waitFor(WAIT);
        await page.getByRole('checkbox', { name: 'Select all on this page' }).waitFor(WAIT);
        await page.screenshot({ path: join(SHOTS, `${dialect}-bulk-user.png`), fullPage: true });
      } finally {
        await context.close();
      }
    });
  });
}

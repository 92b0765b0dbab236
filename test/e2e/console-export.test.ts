// The console's "Export" button, in headless Chromium against a real svc: every resource's list has
// one, and it downloads the list's matching records (its filters and sort, not its page) as CSV, with
// only what the signed-in user may read.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';
import { ensureConsoleBuilt } from '../helpers/console-build.ts';
import { parseRfc4180 } from '../helpers/rfc4180.ts';

const CHROMIUM = '/usr/bin/chromium';
const PASSWORD = 'correct horse battery staple';
const SHOTS = mkdtempSync(join(tmpdir(), 'svc-console-export-'));
const WAIT = { timeout: 15_000 };
const skip = existsSync(CHROMIUM) ? false : `${CHROMIUM} is not installed: the console's browser tests are skipped`;

describe('the console exports a list', { skip }, () => {
  let t: TestApp;
  let browser: Browser;
  let page: Page;
  let base: string;

  before(async () => {
    await ensureConsoleBuilt();
    t = await startTestApp('sqlite');
    await t.ctx.auth.users.create({
      id: 'uma',
      email: 'uma@example.test',
      password: PASSWORD,
      role: 'user',
      verified: true,
    });
    const editor = await t.as('editor');
    await t.request({ method: 'POST', url: '/v1/categories', auth: editor, payload: { name: 'News' } });
    // More than a console page (25) of published posts, one draft, and a formula-looking title.
    for (let i = 0; i < 30; i++) {
      const title = i === 0 ? '=1+1' : `Post ${String(i).padStart(2, '0')}`;
      const created = await t.request({
        method: 'POST',
        url: '/v1/posts',
        auth: editor,
        payload: { title, status: 'published', views: i },
      });
      assert.equal(created.statusCode, 201);
    }
    await t.request({
      method: 'POST',
      url: '/v1/posts',
      auth: editor,
      payload: { title: 'Hidden draft', status: 'draft' },
    });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const address = t.app.server.address();
    if (address === null || typeof address === 'string') throw new Error('not listening on TCP');
    base = `http://127.0.0.1:${address.port}`;
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu'],
    });
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, acceptDownloads: true });
    page = await context.newPage();
  });

  after(async () => {
    await browser?.close();
    await t?.close();
    console.log(`# console export screenshots: ${SHOTS}`);
  });

  it('downloads every matching record the user may read as CSV, from every list', async () => {
    await page.goto(`${base}/console`);
    await page.getByLabel('Email', { exact: true }).fill('uma@example.test');
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByText('Signed in as uma@example.test').waitFor(WAIT);

    await page.goto(`${base}/console#/records/posts?views__gte=3&_sort=-views&page[limit]=10`);
    await page.getByRole('cell', { name: 'Post 29', exact: true }).waitFor(WAIT);
    await page.screenshot({ path: join(SHOTS, 'posts-list.png'), fullPage: true });
    const [download] = await Promise.all([
      page.waitForEvent('download', WAIT),
      page.getByRole('button', { name: 'Export' }).click(),
    ]);
    assert.equal(download.suggestedFilename(), 'posts.csv');
    const [header, ...rows] = parseRfc4180(readFileSync((await download.path())!, 'utf8'));
    assert.equal(header![0], 'id');
    assert.ok(!header!.includes('rating'), 'a field the user may not read is no column');
    const title = header!.indexOf('title');
    // Past the page of 10: all 27 posts with views >= 3, by views descending; no draft.
    assert.equal(rows.length, 27);
    assert.deepEqual(
      rows.slice(0, 2).map((row) => row[title]),
      ['Post 29', 'Post 28'],
    );
    assert.ok(rows.every((row) => row[title] !== 'Hidden draft'));

    const [all] = await Promise.all([
      page.waitForEvent('download', WAIT),
      (async () => {
        await page.goto(`${base}/console#/records/posts`);
        await page.getByRole('cell', { name: 'Post 01' }).first().waitFor(WAIT);
        await page.getByRole('button', { name: 'Export' }).click();
      })(),
    ]);
    const titles = parseRfc4180(readFileSync((await all.path())!, 'utf8'))
      .slice(1)
      .map((row) => row[title]);
    assert.equal(titles.length, 30);
    assert.ok(titles.includes("'=1+1"), 'a formula-looking title is escaped');

    await page.goto(`${base}/console#/records/categories`);
    await page.getByRole('cell', { name: 'News', exact: true }).waitFor(WAIT);
    await page.getByRole('button', { name: 'Export' }).waitFor(WAIT);
    await page.screenshot({ path: join(SHOTS, 'categories-list.png'), fullPage: true });
  });
});

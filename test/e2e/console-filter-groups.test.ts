// The console's filter builder with AND/OR groups, in headless Chromium against a real svc: a condition
// OR a group of two ANDed conditions is built with the controls, applied as `_filter`, answered with
// exactly the matching records, and a shared link opens the builder with the same groups. A resource with
// searchable fields has a search box, which writes `_search` (relevance first) and keeps the filters.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';
import { ensureConsoleBuilt } from '../helpers/console-build.ts';
import { BLOG_RESOURCES } from '../helpers/test-config.ts';

const CHROMIUM = '/usr/bin/chromium';
const PASSWORD = 'correct horse battery staple';
const SHOTS = mkdtempSync(join(tmpdir(), 'svc-console-filter-groups-'));
const WAIT = { timeout: 15_000 };
const skip = existsSync(CHROMIUM) ? false : `${CHROMIUM} is not installed: the console's browser tests are skipped`;

describe('the console builds AND/OR filter groups', { skip }, () => {
  let t: TestApp;
  let browser: Browser;
  let page: Page;
  let base: string;

  before(async () => {
    await ensureConsoleBuilt();
    const posts = BLOG_RESOURCES.posts!;
    t = await startTestApp('sqlite', {
      resources: {
        ...BLOG_RESOURCES,
        posts: { ...posts, fields: { ...posts.fields, title: { ...posts.fields.title!, searchable: true } } },
      },
    });
    await t.ctx.auth.users.create({
      id: 'uma',
      email: 'uma@example.test',
      password: PASSWORD,
      role: 'user',
      verified: true,
    });
    const editor = await t.as('editor');
    for (let i = 1; i <= 30; i++) {
      const created = await t.request({
        method: 'POST',
        url: '/v1/posts',
        auth: editor,
        payload: { title: `Post ${String(i).padStart(2, '0')}`, status: 'published', views: i },
      });
      assert.equal(created.statusCode, 201);
    }
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const address = t.app.server.address();
    if (address === null || typeof address === 'string') throw new Error('not listening on TCP');
    base = `http://127.0.0.1:${address.port}`;
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu'],
    });
    page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
  });

  after(async () => {
    await browser?.close();
    await t?.close();
    console.log(`# console filter group screenshots: ${SHOTS}`);
  });

  /** The titles in the table, in order. */
  const shownTitles = async () =>
    (await page.locator('table.records tbody tr').allInnerTexts()).map((row) => /Post \d\d/.exec(row)?.[0] ?? row);

  it('applies views >= 28 OR (title like "Post 0%" AND views <= 2) as _filter, and reopens it from the link', async () => {
    await page.goto(`${base}/console`);
    await page.getByLabel('Email', { exact: true }).fill('uma@example.test');
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByText('Signed in as uma@example.test').waitFor(WAIT);
    await page.goto(`${base}/console#/records/posts?_sort=title`);
    await page.getByRole('cell', { name: 'Post 01', exact: true }).waitFor(WAIT);
    // svc's own GET /v1/stream is no resource of the navigation.
    const resources = page.getByRole('navigation', { name: 'Main' }).getByRole('link');
    assert.deepEqual(
      (await resources.allInnerTexts()).filter((text) => ['categories', 'posts', 'comments', 'stream'].includes(text)),
      ['categories', 'posts', 'comments'],
    );

    await page.getByRole('button', { name: 'Add filter', exact: true }).click();
    await page.getByLabel('Filter 1 field').selectOption('views');
    await page.getByLabel('Filter 1 operator').selectOption('gte');
    await page.getByLabel('Filter 1 value').fill('28');
    await page.getByRole('button', { name: 'Add group', exact: true }).click();
    await page.getByLabel('Group 2 match').selectOption('and');
    await page.getByLabel('Filter 2.1 field').selectOption('title');
    await page.getByLabel('Filter 2.1 operator').selectOption('like');
    await page.getByLabel('Filter 2.1 value').fill('Post 0%');
    await page.getByRole('button', { name: 'Add filter to group 2' }).click();
    await page.getByLabel('Filter 2.2 field').selectOption('views');
    await page.getByLabel('Filter 2.2 operator').selectOption('lte');
    await page.getByLabel('Filter 2.2 value').fill('2');
    await page.getByLabel('Match', { exact: true }).selectOption('or');
    await page.screenshot({ path: join(SHOTS, 'builder.png'), fullPage: true });
    await page.getByRole('button', { name: 'Apply filters' }).click();

    await page.waitForFunction("location.hash.includes('_filter=')", null, WAIT);
    const hash = new URLSearchParams(decodeURIComponent(new URL(page.url()).hash).split('?')[1]);
    assert.deepEqual(JSON.parse(hash.get('_filter')!), {
      _or: [{ views: { gte: '28' } }, { _and: [{ title: { like: 'Post 0%' } }, { views: { lte: '2' } }] }],
    });
    assert.equal(hash.get('_sort'), 'title', 'sorting is kept');
    await page.waitForLoadState('networkidle');
    await page.screenshot({ path: join(SHOTS, 'after-apply.png'), fullPage: true });
    await page.getByText('1–5 of 5').waitFor(WAIT);
    assert.deepEqual(await shownTitles(), ['Post 01', 'Post 02', 'Post 28', 'Post 29', 'Post 30']);

    // A shared link opens the same groups in the builder, and the same rows.
    const shared = page.url();
    await page.goto('about:blank');
    await page.goto(shared);
    await page.getByText('1–5 of 5').waitFor(WAIT);
    assert.equal(await page.getByLabel('Match', { exact: true }).inputValue(), 'or');
    assert.equal(await page.getByLabel('Group 2 match').inputValue(), 'and');
    assert.equal(await page.getByLabel('Filter 2.1 value').inputValue(), 'Post 0%');
    assert.equal(await page.getByLabel('Filter 2.2 operator').inputValue(), 'lte');
    await page.screenshot({ path: join(SHOTS, 'applied.png'), fullPage: true });

    // Removing the group leaves one condition, written as a plain parameter again.
    await page.getByRole('button', { name: 'Remove group 2' }).click();
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.waitForFunction(
      "location.hash.includes('views__gte=28') && !location.hash.includes('_filter')",
      null,
      WAIT,
    );
    await page.getByText('1–3 of 3').waitFor(WAIT);
    await page.getByRole('button', { name: 'Clear' }).click();
    await page.getByText('1–25 of 30').waitFor(WAIT);
  });

  it('searches the words of a searchable resource, relevance first, with the filters kept', async () => {
    await page.goto(`${base}/console#/records/posts?views__lte=25`);
    await page.getByText('1–25 of 25').waitFor(WAIT);
    const box = page.getByRole('searchbox', { name: 'Search posts' });
    const search = async (words: string) => {
      await box.fill(words);
      await page.getByRole('button', { name: 'Search', exact: true }).click();
    };
    // Titles are "Post 01" … "Post 30", views 1 … 30.
    await search('21');
    await page.waitForFunction("location.hash.includes('_search=')", null, WAIT);
    const hash = new URLSearchParams(decodeURIComponent(new URL(page.url()).hash).split('?')[1]);
    assert.equal(hash.get('_search'), '21');
    assert.equal(hash.get('_sort'), '-_rank', 'relevance first when the list had no order of its own');
    assert.equal(hash.get('views__lte'), '25', 'the filters are kept');
    await page.getByText('1–1 of 1').waitFor(WAIT);
    assert.deepEqual(await shownTitles(), ['Post 21']);
    await page.screenshot({ path: join(SHOTS, 'search.png'), fullPage: true });

    // The filter still applies to another search; clearing the filters keeps the search.
    await search('27');
    await page.getByText('0 records').waitFor(WAIT);
    await page.getByRole('button', { name: 'Clear' }).click();
    await page.getByText('1–1 of 1').waitFor(WAIT);
    assert.deepEqual(await shownTitles(), ['Post 27']);
    assert.equal(await box.inputValue(), '27');
    // An empty search clears it and the relevance order.
    await search('');
    await page.getByText('1–25 of 30').waitFor(WAIT);
    assert.ok(!page.url().includes('_search') && !page.url().includes('_rank'));

    // A resource without searchable fields has no search box.
    await page.goto(`${base}/console#/records/categories`);
    await page.getByRole('heading', { name: 'categories' }).waitFor(WAIT);
    assert.equal(await page.getByRole('searchbox').count(), 0);
  });
});

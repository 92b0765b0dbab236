// The console's record editing in headless Chromium against a real svc on SQLite and PostgreSQL: a
// JSON field that does not parse is refused at the field before anything is sent; datetimes are picked
// in the browser's time zone, which is named; multi-line text keeps its line breaks; field and resource
// descriptions are shown as help; Edit and Delete are offered per record as meta.can says; the
// administrator restores a soft-deleted record; a record lists the records that point at it and its
// history of changes. Screenshots are saved for a person to look at.
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
import { BLOG_RESOURCES } from '../helpers/test-config.ts';

const CHROMIUM = '/usr/bin/chromium';
const PASSWORD = 'correct horse battery staple';
const SHOTS = mkdtempSync(join(tmpdir(), 'svc-console-editing-'));
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const WAIT = { timeout: 15_000 };

const skip = existsSync(CHROMIUM) ? false : `${CHROMIUM} is not installed: the console's browser tests are skipped`;
if (skip) console.log(`# SKIPPED: ${skip}`);

// The blog, with a description on posts and on its body field.
const RESOURCES = JSON.parse(JSON.stringify(BLOG_RESOURCES)) as typeof BLOG_RESOURCES;
RESOURCES.posts = {
  ...RESOURCES.posts,
  description: 'Articles shown on the public site.',
  fields: {
    ...RESOURCES.posts!.fields,
    body: { type: 'text', description: 'Markdown; blank lines split paragraphs.' },
  },
};

async function checkAccessibility(page: Page, view: string): Promise<void> {
  await page.evaluate(AXE_SOURCE);
  const violations = (await page.evaluate(`axe.run(document, { resultTypes: ['violations'] }).then((result) =>
    result.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => v.id + ' (' + v.impact + '): ' + v.nodes.slice(0, 3).map((n) => JSON.stringify(n.target)).join(', ')))`)) as string[];
  assert.deepEqual(violations, [], `accessibility problems on ${view}`);
}

for (const dialect of testDialects()) {
  describe(`console editing (${dialect})`, { skip }, () => {
    let t: TestApp;
    let base: string;
    let browser: Browser;
    let editorKey: string;
    const ids = new Map<string, string>();
    /** `METHOD /path` of every write the page sent. */
    const writes: string[] = [];

    async function open(): Promise<{ context: BrowserContext; page: Page }> {
      // A fixed zone far from UTC, so a datetime shows the conversion.
      const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, timezoneId: 'Europe/Berlin' });
      await context.route(/^(?!http:\/\/127\.0\.0\.1:)/, (route) => route.abort());
      const page = await context.newPage();
      page.on('request', (request) => {
        if (request.method() !== 'GET') writes.push(`${request.method()} ${new URL(request.url()).pathname}`);
      });
      await page.goto(`${base}/console`);
      return { context, page };
    }

    async function signedIn(email: string): Promise<{ context: BrowserContext; page: Page }> {
      const opened = await open();
      await opened.page.getByLabel('Email', { exact: true }).fill(email);
      await opened.page.getByLabel('Password', { exact: true }).fill(PASSWORD);
      await opened.page.getByRole('button', { name: 'Sign in' }).click();
      await opened.page.getByText(`Signed in as ${email}`).waitFor(WAIT);
      return opened;
    }

    before(async () => {
      await ensureConsoleBuilt();
      t = await startTestApp(dialect, { resources: RESOURCES });
      for (const [id, role] of [
        ['edna', 'editor'],
        ['uma', 'user'],
      ] as const)
        await t.ctx.auth.users.create({ id, email: `${id}@example.test`, password: PASSWORD, role, verified: true });
      editorKey = await t.as('editor');
      for (const [title, author] of [
        ['By Edna', 'edna'],
        ['By Uma', 'uma'],
        ['To restore', 'edna'],
      ] as const) {
        const created = await t.request({
          method: 'POST',
          url: '/v1/posts',
          auth: editorKey,
          payload: { title, status: 'published', author_id: author },
        });
        assert.equal(created.statusCode, 201, created.body);
        ids.set(title, created.json().data.id as string);
      }
      await t.app.listen({ port: 0, host: '127.0.0.1' });
      const address = t.app.server.address();
      if (address === null || typeof address === 'string') throw new Error('not listening on TCP');
      base = `http://127.0.0.1:${address.port}`;
      browser = await chromium.launch({
        executablePath: CHROMIUM,
        args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
      });
    });

    after(async () => {
      await browser?.close();
      await t?.close();
      console.log(`# console editing screenshots: ${SHOTS}`);
    });

    it('refuses JSON that does not parse at its field, picks datetimes in a named zone, keeps line breaks, shows help', async () => {
      const { context, page } = await signedIn('edna@example.test');
      try {
        await page.goto(`${base}/console#/records/posts`);
        await page.getByText('Articles shown on the public site.').waitFor(WAIT);
        await page.getByRole('button', { name: 'New record' }).click();
        await page.locator('#input-title').fill('Two lines');
        await page.locator('#input-body').fill('line one\nline two');
        // The field's description is its help, read out with the input.
        assert.match((await page.locator('#input-body').getAttribute('aria-describedby')) ?? '', /help-body/);
        assert.equal(await page.locator('#help-body').innerText(), 'Markdown; blank lines split paragraphs.');
        assert.equal(await page.locator('#input-published_at').getAttribute('type'), 'datetime-local');
        assert.equal(await page.locator('#zone-published_at').innerText(), 'Time zone: Europe/Berlin');
        await page.locator('#input-published_at').fill('2026-03-01T09:30:00');
        await page.locator('#input-tags').fill('{bad json');
        // Checked as it is typed, before any save.
        assert.match(await page.locator('#input-tags-parse').innerText(), /^Not valid JSON yet/);
        assert.equal(await page.getByRole('button', { name: 'Format JSON' }).isDisabled(), true);
        writes.length = 0;
        await page.getByRole('button', { name: 'Create', exact: true }).click();
        const problem = page.locator('#error-tags');
        await problem.waitFor(WAIT);
        assert.match(await problem.innerText(), /^Not valid JSON/);
        assert.equal(await page.locator('#input-tags').getAttribute('aria-invalid'), 'true');
        assert.deepEqual(writes, [], 'nothing is sent while a JSON field does not parse');
        await checkAccessibility(page, 'invalid JSON field');
        await page.screenshot({ path: join(SHOTS, `${dialect}-json-refused.png`), fullPage: true });

        await page.locator('#input-tags').fill('["news", {"pinned": true}]');
        assert.equal(await page.locator('#input-tags-parse').count(), 0);
        await page.getByRole('button', { name: 'Format JSON' }).click();
        assert.equal(await page.locator('#input-tags').inputValue(), '[\n  "news",\n  {\n    "pinned": true\n  }\n]');
        await page.getByRole('button', { name: 'Create', exact: true }).click();
        await page.getByRole('heading', { name: 'posts record', exact: true }).waitFor(WAIT);
        assert.deepEqual(writes, ['POST /v1/posts']);
        const list = await t.request({ method: 'GET', url: '/v1/posts?filter[title][eq]=Two lines', auth: editorKey });
        const stored = list.json().data[0].attributes;
        assert.deepEqual(stored.tags, ['news', { pinned: true }]);
        // 09:30 in Berlin in March (CET, UTC+1) is 08:30 UTC.
        assert.equal(new Date(stored.published_at as string).toISOString(), '2026-03-01T08:30:00.000Z');
        assert.equal(stored.body, 'line one\nline two');
        // Shown with its line break, and the datetime with the zone it is shown in.
        const body = page.locator('dd.multiline').filter({ hasText: 'line one' });
        assert.equal(
          await body.evaluate(
            // Runs in the page; the test's TypeScript has no DOM types.
            (e) =>
              (globalThis as unknown as { getComputedStyle(e: unknown): { whiteSpace: string } }).getComputedStyle(e)
                .whiteSpace,
          ),
          'pre-wrap',
        );
        assert.equal(await body.innerText(), 'line one\nline two');
        await page.getByText('(Europe/Berlin)').waitFor(WAIT);
        await checkAccessibility(page, 'record with help');
        await page.screenshot({ path: join(SHOTS, `${dialect}-record-view.png`), fullPage: true });
      } finally {
        await context.close();
      }
    });

    it('offers Edit and Delete only on the records meta.can allows', async () => {
      const { context, page } = await signedIn('uma@example.test');
      try {
        // On the list, only Uma's own post can be ticked for deletion.
        await page.goto(`${base}/console#/records/posts`);
        await page.getByRole('checkbox', { name: 'Select By Uma' }).waitFor(WAIT);
        assert.equal(await page.getByRole('checkbox', { name: 'Select By Edna' }).count(), 0);
        await page.goto(`${base}/console#/records/posts?record=${ids.get('By Edna')}`);
        await page.getByRole('heading', { name: 'posts record', exact: true }).waitFor(WAIT);
        await page.getByText('By Edna').first().waitFor(WAIT);
        const panel = page.getByRole('dialog');
        assert.equal(await panel.getByRole('button', { name: 'Edit' }).count(), 0);
        assert.equal(await panel.getByRole('button', { name: 'Delete' }).count(), 0);
        await page.screenshot({ path: join(SHOTS, `${dialect}-not-mine.png`), fullPage: true });
        await page.goto(`${base}/console#/records/posts?record=${ids.get('By Uma')}`);
        await panel.getByText('By Uma').first().waitFor(WAIT);
        await panel.getByRole('button', { name: 'Edit' }).waitFor(WAIT);
        await panel.getByRole('button', { name: 'Delete' }).waitFor(WAIT);
      } finally {
        await context.close();
      }
    });

    it("lists a record's related records with a link to them, and its history of changes", async () => {
      const id = ids.get('By Edna')!;
      for (const body of ['First comment', 'Second comment']) {
        const created = await t.request({
          method: 'POST',
          url: '/v1/comments',
          auth: editorKey,
          payload: { post_id: id, body },
        });
        assert.equal(created.statusCode, 201, created.body);
      }
      const renamed = await t.request({
        method: 'PATCH',
        url: `/v1/posts/${id}`,
        auth: editorKey,
        payload: { title: 'By Edna, renamed' },
      });
      assert.equal(renamed.statusCode, 200, renamed.body);
      const { context, page } = await signedIn('edna@example.test');
      try {
        await page.goto(`${base}/console#/records/posts?record=${id}`);
        const panel = page.getByRole('dialog');
        const related = panel.getByRole('region', { name: 'Related records' });
        await related.getByRole('link', { name: 'First comment' }).waitFor(WAIT);
        assert.match(await related.getByRole('heading', { name: /comments/ }).innerText(), /by post_id · 2/);
        await panel.getByRole('button', { name: /History/ }).click();
        const change = panel.locator('.changes li').first();
        await change.getByText('updated').waitFor(WAIT);
        assert.match(await change.innerText(), /by user editor-user as editor/);
        assert.deepEqual(await change.locator('tbody tr').first().locator('td').allInnerTexts(), [
          'title',
          'By Edna',
          'By Edna, renamed',
        ]);
        assert.match(await panel.locator('.changes li').last().innerText(), /^created/);
        await checkAccessibility(page, 'related records and history');
        await page.screenshot({ path: join(SHOTS, `${dialect}-related-history.png`), fullPage: true });
        // The link opens the comments list filtered on this post.
        await related.getByRole('link', { name: 'All comments of this record' }).click();
        await page.getByRole('cell', { name: 'Second comment', exact: true }).waitFor(WAIT);
        assert.equal(new URL(page.url()).hash, `#/records/comments?post_id=${id}`);
        assert.equal(await page.getByRole('cell', { name: 'First comment', exact: true }).count(), 1);
      } finally {
        await context.close();
      }
    });

    it('picks a relation by searching its target, a page at a time, from the keyboard', async () => {
      for (let i = 0; i < 25; i++) {
        const created = await t.request({
          method: 'POST',
          url: '/v1/posts',
          auth: editorKey,
          payload: { title: `Filler ${String(i).padStart(2, '0')}`, author_id: 'edna' },
        });
        assert.equal(created.statusCode, 201, created.body);
      }
      const { context, page } = await signedIn('edna@example.test');
      try {
        await page.goto(`${base}/console#/records/comments?new=1`);
        const picker = page.getByRole('combobox', { name: /post_id/ });
        await picker.focus();
        const listbox = page.getByRole('listbox', { name: 'posts records' });
        await listbox.waitFor(WAIT);
        // Twenty at first, more on request.
        assert.equal(await listbox.getByRole('option').count(), 20);
        await page.getByRole('button', { name: 'More results' }).click();
        await page.waitForFunction(
          () =>
            (
              globalThis as unknown as { document: { querySelectorAll(s: string): { length: number } } }
            ).document.querySelectorAll('[role=option]').length > 20,
          undefined,
          WAIT,
        );
        // Typing narrows case-insensitively; arrows and Enter choose.
        await picker.fill('by uMA');
        await listbox.getByRole('option', { name: 'By Uma', exact: true }).waitFor(WAIT);
        await page.waitForFunction(
          () =>
            (
              globalThis as unknown as { document: { querySelectorAll(s: string): { length: number } } }
            ).document.querySelectorAll('[role=option]').length === 1,
          undefined,
          WAIT,
        );
        assert.equal(await picker.getAttribute('aria-expanded'), 'true');
        await picker.press('ArrowDown');
        await picker.press('Enter');
        assert.equal(await picker.getAttribute('aria-expanded'), 'false');
        await page.locator('#input-post_id-chosen').getByText('By Uma').waitFor(WAIT);
        await checkAccessibility(page, 'relation picker');
        await page.screenshot({ path: join(SHOTS, `${dialect}-relation-picker.png`), fullPage: true });
        await page.locator('#input-body').fill('Picked from the search');
        await page.getByRole('button', { name: 'Create', exact: true }).click();
        await page.getByRole('heading', { name: 'comments record', exact: true }).waitFor(WAIT);
        const list = await t.request({
          method: 'GET',
          url: '/v1/comments?body=Picked from the search',
          auth: editorKey,
        });
        assert.equal(list.json().data[0].attributes.post_id, ids.get('By Uma'));
      } finally {
        await context.close();
      }
    });

    it('tells a failed list from an empty one, with a retry when the service could not be reached', async () => {
      const { context, page } = await signedIn('edna@example.test');
      try {
        // An invalid filter: the API's reason, no retry (the query must change), and never "No records match."
        await page.goto(`${base}/console#/records/posts?filter[views][gt]=many`);
        const refused = page.getByRole('alert').filter({ hasText: 'The service refused this list' });
        await refused.waitFor(WAIT);
        assert.equal(await refused.getByRole('button', { name: 'Retry' }).count(), 0);
        assert.equal(await page.getByText('No records match.').count(), 0);
        await checkAccessibility(page, 'refused list');
        await page.screenshot({ path: join(SHOTS, `${dialect}-list-refused.png`), fullPage: true });
        // A filter nothing matches is an empty result, said so.
        await page.goto(`${base}/console#/records/posts?filter[title][eq]=nothing-has-this-title`);
        await page.getByText('No records match.').waitFor(WAIT);
        assert.equal(await page.getByRole('alert').count(), 0);
        // The service unreachable: a retry, which works once it is back.
        await context.route(/\/v1\/posts\?/, (route) => route.abort('connectionrefused'));
        await page.goto(`${base}/console#/records/posts?_sort=title`);
        const unreachable = page.getByRole('alert').filter({ hasText: 'the service could not be reached' });
        await unreachable.waitFor(WAIT);
        assert.equal(await page.getByText('No records match.').count(), 0);
        await page.screenshot({ path: join(SHOTS, `${dialect}-list-unreachable.png`), fullPage: true });
        await context.unroute(/\/v1\/posts\?/);
        await unreachable.getByRole('button', { name: 'Retry' }).click();
        await page.getByRole('cell', { name: 'By Uma', exact: true }).waitFor(WAIT);
        assert.equal(await page.getByRole('alert').count(), 0);
      } finally {
        await context.close();
      }
    });

    it('keeps /docs on this origin: no external link, no API client button, a favicon, a way back, contrast', async () => {
      const { context, page } = await open();
      const missing: string[] = [];
      page.on('response', (response) => {
        if (response.status() === 404) missing.push(response.url());
      });
      try {
        await page.goto(`${base}/docs`);
        // The reference is a large script: on a busy machine it takes a while to render.
        await page.getByText('List categories records').first().waitFor({ timeout: 60_000 });
        assert.equal(await page.getByRole('button', { name: /Open API Client/i }).count(), 0);
        assert.equal(await page.getByText('Open API Client').filter({ visible: true }).count(), 0);
        // Every visible link stays on this origin.
        const away = (await page.evaluate(`[...document.querySelectorAll('a[href]')]
          .filter((a) => a.offsetParent !== null && new URL(a.href, location.href).origin !== location.origin)
          .map((a) => a.href)`)) as string[];
        assert.deepEqual(away, []);
        const icon = await page.locator('link[rel="icon"]').getAttribute('href');
        assert.match(icon ?? '', /^data:image\/svg\+xml,/);
        assert.deepEqual(missing, []);
        await checkAccessibility(page, '/docs');
        await page.screenshot({ path: join(SHOTS, `${dialect}-docs.png`) });
        await page.getByRole('link', { name: 'Back to the console' }).click();
        await page.getByLabel('Email', { exact: true }).waitFor(WAIT);
        assert.equal(new URL(page.url()).pathname, '/console');
      } finally {
        await context.close();
      }
    });

    it('lets the administrator restore a soft-deleted record', async () => {
      const id = ids.get('To restore')!;
      const deleted = await t.request({ method: 'DELETE', url: `/v1/posts/${id}`, auth: editorKey });
      assert.equal(deleted.statusCode, 204, deleted.body);
      const { context, page } = await open();
      try {
        await page.getByRole('tab', { name: 'Admin token' }).click();
        await page.locator('#signin-token').fill(t.admin.replace('Bearer ', ''));
        await page.getByRole('button', { name: 'Sign in' }).click();
        await page.getByText('Signed in as administrator').waitFor(WAIT);
        await page.goto(`${base}/console#/records/posts`);
        await page.getByRole('button', { name: 'Show deleted' }).click();
        writes.length = 0;
        await page.getByRole('button', { name: `Restore ${id}` }).click();
        await page
          .getByRole('status')
          .filter({ hasText: `Restored ${id}.` })
          .waitFor(WAIT);
        assert.deepEqual(writes, [`POST /admin/resources/posts/deleted/${id}/restore`]);
        assert.equal(await page.getByRole('button', { name: `Restore ${id}` }).count(), 0);
        const back = await t.request({ method: 'GET', url: `/v1/posts/${id}`, auth: editorKey });
        assert.equal(back.statusCode, 200, back.body);
        await checkAccessibility(page, 'deleted records');
        await page.screenshot({ path: join(SHOTS, `${dialect}-restored.png`), fullPage: true });
      } finally {
        await context.close();
      }
    });
  });
}

// The console's file fields in headless Chromium against a real svc on SQLite and PostgreSQL: a PNG
// dropped on the field uploads, its preview loads through the record's signed `url` in
// the configured thumbnail size, the download link (signed, no Authorization header) gives back the same
// bytes; the record's view shows the preview and link too; a refused type and an oversized file show the
// API's error under their field; a list fills to maxCount; files are removed; a new record is created
// with its files in one multipart request, or not at all when one is refused. axe finds no serious
// problem. Screenshots are saved for a person to look at.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import type { Browser, Page } from 'playwright-core';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';
import { testDialects } from '../helpers/test-databases.ts';
import { ensureConsoleBuilt } from '../helpers/console-build.ts';
import {
  BROWSER_WAIT,
  browserSkip,
  checkAccessibility,
  launchChromium,
  listenOnLoopback,
  openConsole,
  signInConsole,
} from '../helpers/console-browser.ts';
import type { ResourceDefinition } from '../../src/config/config-types.ts';

const PASSWORD = 'correct horse battery staple';
const SHOTS = mkdtempSync(join(tmpdir(), 'svc-console-files-'));
if (browserSkip) console.log(`# SKIPPED: ${browserSkip}`);

const RESOURCES: Record<string, ResourceDefinition> = {
  profiles: {
    fields: {
      name: { type: 'string', required: true },
      avatar: { type: 'file', accept: ['image/*'], thumbs: ['48x48', '200x0'] },
      papers: { type: 'files', maxCount: 2, maxSize: 2048 },
    },
    permissions: { editor: { read: true, create: true, update: true, delete: true } },
  },
};

/** Drops `file` on the field's drop zone as a person dragging it from their desktop would. */
async function dropFile(page: Page, field: string, file: { name: string; type: string; bytes: Buffer }) {
  // Run in the page (a string: this file is compiled without the DOM's types).
  const transfer = await page.evaluateHandle(`(() => {
    const bytes = Uint8Array.from(atob('${file.bytes.toString('base64')}'), (c) => c.charCodeAt(0));
    const data = new DataTransfer();
    data.items.add(new File([bytes], ${JSON.stringify(file.name)}, { type: ${JSON.stringify(file.type)} }));
    return data;
  })()`);
  const zone = page.getByRole('group', { name: `Drop a file for ${field}` });
  await zone.dispatchEvent('dragover', { dataTransfer: transfer });
  await zone.dispatchEvent('drop', { dataTransfer: transfer });
}

for (const dialect of testDialects()) {
  describe(`console file fields (${dialect})`, { skip: browserSkip }, () => {
    let t: TestApp;
    let base: string;
    let browser: Browser;
    let recordId: string;
    let png: Buffer;

    before(async () => {
      await ensureConsoleBuilt();
      png = await sharp({ create: { width: 160, height: 120, channels: 3, background: '#2a9d8f' } })
        .png()
        .toBuffer();
      t = await startTestApp(dialect, { resources: RESOURCES });
      await t.ctx.auth.users.create({
        id: 'edna',
        email: 'edna@example.test',
        password: PASSWORD,
        role: 'editor',
        verified: true,
      });
      const created = await t.request({
        method: 'POST',
        url: '/v1/profiles',
        auth: await t.as('editor'),
        payload: { name: 'Ada' },
      });
      assert.equal(created.statusCode, 201, created.body);
      recordId = created.json().data.id;
      base = await listenOnLoopback(t);
      browser = await launchChromium();
    });

    after(async () => {
      await browser?.close();
      await t?.close();
      console.log(`# console file screenshots: ${SHOTS}`);
    });

    it('uploads a dropped PNG, previews its thumbnail and downloads it with the signed url', async () => {
      const { context, page } = await openConsole(browser, base);
      try {
        await signInConsole(page, 'edna@example.test', PASSWORD);
        await page.goto(`${base}/console#/records/profiles?record=${recordId}`);
        await page.getByRole('button', { name: 'Edit', exact: true }).click();
        const uploads: string[] = [];
        page.on('request', (request) => {
          if (request.method() === 'PUT') uploads.push(new URL(request.url()).pathname);
        });
        await dropFile(page, 'avatar', { name: 'face.png', type: 'image/png', bytes: png });
        const preview = page.getByRole('img', { name: 'Preview of face.png' });
        await preview.waitFor(BROWSER_WAIT);
        assert.deepEqual(uploads, [`/v1/profiles/${recordId}/avatar`]);
        // The preview is the smallest configured thumb, fetched with the signed token (no header needed).
        const src = (await preview.getAttribute('src')) ?? '';
        assert.match(src, new RegExp(`^/v1/profiles/${recordId}/avatar\\?token=[^&]+&thumb=48x48$`));
        // Loaded: the image the browser decoded is the 48 px thumbnail, not the 160 px original.
        // Polled with page.evaluate: waitForFunction evaluates in a way the console's CSP refuses.
        let width = 0;
        for (let i = 0; i < 100 && width !== 48; i++) {
          width = Number(await page.evaluate("document.querySelector('img.file-preview')?.naturalWidth ?? 0"));
          if (width !== 48) await new Promise((resolve) => setTimeout(resolve, 50));
        }
        assert.equal(width, 48);
        await page.screenshot({ path: join(SHOTS, `${dialect}-uploaded.png`), fullPage: true });
        await checkAccessibility(page, 'a file field with a file');

        const stored = (
          await t.request({ method: 'GET', url: `/v1/profiles/${recordId}`, auth: await t.as('editor') })
        ).json().data.attributes.avatar;
        assert.equal(stored.name, 'face.png');
        assert.equal(stored.type, 'image/png');
        assert.equal(stored.size, png.length);

        const [download] = await Promise.all([
          page.waitForEvent('download', BROWSER_WAIT),
          page.getByRole('link', { name: 'face.png' }).click(),
        ]);
        assert.match(download.url(), /\/avatar\?token=/);
        assert.equal(download.suggestedFilename(), 'face.png');
        assert.deepEqual(readFileSync((await download.path())!), png, 'the download is the uploaded file');
      } finally {
        await context.close();
      }
    });

    it("shows the API's refusal of a type or a size under the field, and removes a file", async () => {
      const { context, page } = await openConsole(browser, base);
      try {
        await signInConsole(page, 'edna@example.test', PASSWORD);
        await page.goto(`${base}/console#/records/profiles?record=${recordId}`);
        // Shown (not editing): the preview and the signed download link, no upload controls.
        await page.getByRole('img', { name: 'Preview of face.png' }).waitFor(BROWSER_WAIT);
        assert.match(
          (await page.getByRole('link', { name: 'face.png' }).getAttribute('href')) ?? '',
          /\/avatar\?token=/,
        );
        assert.equal(await page.locator('input[type=file]').count(), 0);
        await page.getByRole('button', { name: 'Edit', exact: true }).click();
        // The keyboard path: the field's own file input. A page is not an image: 415 at avatar.
        await page.locator('#input-avatar').setInputFiles({
          name: 'not-an-image.png',
          mimeType: 'image/png',
          buffer: Buffer.from('<html><script>alert(1)</script></html>'),
        });
        const avatarError = page.locator('#upload-error-avatar');
        await avatarError.waitFor(BROWSER_WAIT);
        assert.match(await avatarError.innerText(), /application\/octet-stream, which is not one of image\/\*/);
        assert.equal(await page.locator('#input-avatar').getAttribute('aria-invalid'), 'true');

        // papers takes 2048 bytes at most: 413 at papers.
        await dropFile(page, 'papers', { name: 'big.txt', type: 'text/plain', bytes: Buffer.alloc(64 * 1024, 'a') });
        const papersError = page.locator('#upload-error-papers');
        await papersError.waitFor(BROWSER_WAIT);
        assert.match(await papersError.innerText(), /2048|large|size/i);
        await page.screenshot({ path: join(SHOTS, `${dialect}-refused.png`), fullPage: true });
        await checkAccessibility(page, 'file fields showing refusals');

        // Two small papers fill the list (maxCount 2): the drop zone gives way to a note.
        await page.locator('#input-papers').setInputFiles([
          { name: 'a.txt', mimeType: 'text/plain', buffer: Buffer.from('first') },
          { name: 'b.txt', mimeType: 'text/plain', buffer: Buffer.from('second') },
        ]);
        await page.getByRole('link', { name: 'b.txt' }).waitFor(BROWSER_WAIT);
        await page.getByText('papers holds 2 files, its most').waitFor(BROWSER_WAIT);
        await page.getByRole('button', { name: 'Remove a.txt from papers (file 1)' }).click();
        await page.getByRole('link', { name: 'a.txt' }).waitFor({ state: 'detached', ...BROWSER_WAIT });
        await page.getByRole('button', { name: 'Remove face.png from avatar' }).click();
        await page.getByRole('img', { name: 'Preview of face.png' }).waitFor({ state: 'detached', ...BROWSER_WAIT });
        await page.screenshot({ path: join(SHOTS, `${dialect}-removed.png`), fullPage: true });
        const after = (
          await t.request({ method: 'GET', url: `/v1/profiles/${recordId}`, auth: await t.as('editor') })
        ).json().data.attributes;
        assert.equal(after.avatar, null);
        assert.deepEqual(
          after.papers.map((f: { name: string }) => f.name),
          ['b.txt'],
        );
      } finally {
        await context.close();
      }
    });

    it('creates a record with its files in one multipart request, or not at all when one is refused', async () => {
      const { context, page } = await openConsole(browser, base);
      try {
        await signInConsole(page, 'edna@example.test', PASSWORD);
        await page.goto(`${base}/console#/records/profiles`);
        const posts: string[] = [];
        page.on('request', (request) => {
          if (request.method() === 'POST') posts.push(request.headers()['content-type'] ?? '');
        });
        await page.getByRole('button', { name: 'New record' }).click();
        await page.locator('#input-name').fill('Refused');
        await dropFile(page, 'avatar', { name: 'page.png', type: 'image/png', bytes: Buffer.from('<html></html>') });
        await page.getByText('sent on Create').waitFor(BROWSER_WAIT);
        await page.getByRole('button', { name: 'Create', exact: true }).click();
        const refused = page.locator('#error-avatar');
        await refused.waitFor(BROWSER_WAIT);
        assert.match(await refused.innerText(), /which is not one of image\/\*/);
        assert.equal(await page.locator('#input-avatar').getAttribute('aria-invalid'), 'true');
        const none = await t.request({ method: 'GET', url: '/v1/profiles?name=Refused', auth: await t.as('editor') });
        assert.deepEqual(none.json().data, [], 'the record was not created without its file');

        await page.getByRole('button', { name: 'Remove page.png from avatar' }).click();
        await page.locator('#input-name').fill('Grace');
        await dropFile(page, 'avatar', { name: 'grace.png', type: 'image/png', bytes: png });
        await page
          .locator('#input-papers')
          .setInputFiles([{ name: 'cv.txt', mimeType: 'text/plain', buffer: Buffer.from('curriculum') }]);
        await page.getByRole('button', { name: 'Create', exact: true }).click();
        await page.getByRole('img', { name: 'Preview of grace.png' }).waitFor(BROWSER_WAIT);
        await page.getByRole('link', { name: 'cv.txt' }).waitFor(BROWSER_WAIT);
        await page.screenshot({ path: join(SHOTS, `${dialect}-created.png`), fullPage: true });
        assert.ok(posts.length >= 2 && posts.every((type) => type.startsWith('multipart/form-data')), posts.join());
        const created = await t.request({ method: 'GET', url: '/v1/profiles?name=Grace', auth: await t.as('editor') });
        const [grace] = created.json().data;
        assert.equal(grace.attributes.avatar.size, png.length);
        assert.deepEqual(
          grace.attributes.papers.map((f: { name: string }) => f.name),
          ['cv.txt'],
        );
      } finally {
        await context.close();
      }
    });
  });
}

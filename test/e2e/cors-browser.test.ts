// A browser app on another origin does a full CRUD round against svc through fetch: headless Chromium
// (Debian's `chromium`, driven by playwright-core) loads a page from a second local server and sends
// POST, GET, PATCH, PUT and DELETE with an Authorization header, each after a real CORS preflight.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';
import { testDialects } from '../helpers/test-databases.ts';

const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

interface Step {
  method: string;
  status: number;
  /** Response headers the page could read (exposed ones only, as CORS allows). */
  location: string | null;
  requestId: string | null;
  error?: string;
}

/** The page: runs the round against `api` with `authorization`, shows each answer, and leaves the results on window. */
const PAGE = `<!doctype html>
<html><head><meta charset="utf-8"><title>CORS round</title></head>
<body><h1>CORS round</h1><ol id="steps"></ol>
<script type="module">
const params = new URLSearchParams(location.search);
const api = params.get('api');
const authorization = params.get('authorization');
const steps = [];
async function call(method, path, body) {
  const step = { method, status: 0, location: null, requestId: null };
  try {
    const response = await fetch(api + path, {
      method,
      headers: { authorization, ...(body ? { 'content-type': 'application/json' } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    step.status = response.status;
    step.location = response.headers.get('location');
    step.requestId = response.headers.get('x-request-id');
    const text = await response.text();
    step.body = text ? JSON.parse(text) : null;
  } catch (error) {
    step.error = String(error);
  }
  steps.push(step);
  const item = document.createElement('li');
  item.textContent = method + ' ' + path + ' → ' + (step.error ?? step.status);
  document.getElementById('steps').append(item);
  return step;
}
const created = await call('POST', '/v1/categories', { name: 'from-browser', description: 'created' });
const id = created.body?.data?.id;
await call('GET', '/v1/categories/' + id);
await call('PATCH', '/v1/categories/' + id, { description: 'patched' });
await call('PUT', '/v1/categories/' + id, { name: 'from-browser-put', description: 'replaced' });
await call('DELETE', '/v1/categories/' + id);
window.__steps = steps.map(({ body, ...rest }) => rest);
window.__done = true;
</script></body></html>`;

function listen(server: Server): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      if (address === null || typeof address === 'string') reject(new Error('not listening on TCP'));
      else resolve(address.port);
    });
  });
}

const skip = existsSync(CHROMIUM)
  ? false
  : `${CHROMIUM} is missing: install Debian's chromium (apt-get install -y chromium) to run the browser CORS test`;
if (skip) process.stdout.write(`# SKIP ${skip}\n`);

for (const dialect of testDialects()) {
  describe(`CRUD from a browser on another origin (${dialect})`, { skip }, () => {
    let pages: Server;
    let pageOrigin: string;
    let t: TestApp;
    let apiBase: string;
    let browser: Browser;

    before(async () => {
      pages = createServer((_request, response) => {
        response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
        response.end(PAGE);
      });
      pageOrigin = `http://127.0.0.1:${await listen(pages)}`;
      t = await startTestApp(dialect, {
        server: { port: 0, host: '127.0.0.1', cors: { origins: [pageOrigin] }, bodyLimitBytes: 1048576 },
      });
      await t.app.listen({ port: 0, host: '127.0.0.1' });
      const address = t.app.server.address();
      if (address === null || typeof address === 'string') throw new Error('not listening on TCP');
      apiBase = `http://127.0.0.1:${address.port}`;
      browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, timeout: 30_000 });
    });

    after(async () => {
      await browser?.close();
      await t?.close();
      await new Promise((resolve) => pages?.close(resolve));
    });

    it('creates, reads, patches, replaces and deletes through fetch, and reads the exposed headers', async () => {
      const page = await browser.newPage();
      try {
        const query = new URLSearchParams({ api: apiBase, authorization: await t.as('editor') });
        await page.goto(`${pageOrigin}/?${query}`, { timeout: 15_000 });
        await page.waitForFunction(() => (globalThis as unknown as { __done?: boolean }).__done === true, null, {
          timeout: 20_000,
        });
        const steps = await page.evaluate(() => (globalThis as unknown as { __steps: Step[] }).__steps);
        const screenshot = join(mkdtempSync(join(tmpdir(), 'svc-cors-')), `cors-${dialect}.png`);
        await page.screenshot({ path: screenshot, fullPage: true });
        assert.ok(statSync(screenshot).size > 0, 'no screenshot written');
        assert.deepEqual(
          steps.map((s) => `${s.method} ${s.error ?? s.status}`),
          ['POST 201', 'GET 200', 'PATCH 200', 'PUT 200', 'DELETE 204'],
          `screenshot: ${screenshot}`,
        );
        assert.match(steps[0]?.location ?? '', /^\/v1\/categories\/[0-9a-f-]{36}$/);
        for (const step of steps) assert.ok(step.requestId, `${step.method}: X-Request-Id not readable`);
      } finally {
        await page.close();
      }
    });
  });
}

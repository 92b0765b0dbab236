// The console and API reference as the server serves them: the built files at /console and /docs with a
// strict CSP, nothing else reachable under those paths, off with `server.console: false`, and the first
// load of the console within its size budget.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';
import { testDialects } from '../helpers/test-databases.ts';
import { ensureConsoleBuilt } from '../helpers/console-build.ts';
import {
  bodyOf,
  CONSOLE_BUILD_DIR,
  type ConsoleFile,
  gzippedBody,
  HELD_BYTES,
  readConsoleFiles,
} from '../../src/http/routes/console-files.ts';

const FIRST_LOAD_BUDGET_BYTES = 150 * 1024;

for (const dialect of testDialects()) {
  describe(`web console routes (${dialect})`, () => {
    let t: TestApp;
    before(async () => {
      await ensureConsoleBuilt();
      t = await startTestApp(dialect);
    });
    after(() => t?.close());

    it('serves the console page with a CSP that allows no inline script or style', async () => {
      const response = await t.request({ method: 'GET', url: '/console' });
      assert.equal(response.statusCode, 200);
      assert.match(String(response.headers['content-type']), /^text\/html/);
      const csp = String(response.headers['content-security-policy']);
      assert.match(csp, /default-src 'self'/);
      assert.match(csp, /script-src 'self'(;|$)/);
      assert.match(csp, /style-src 'self'(;|$)/);
      assert.match(csp, /frame-ancestors 'none'/);
      assert.doesNotMatch(csp, /unsafe-eval/);
      // No inline script in the page itself, and nothing loaded from another origin.
      assert.doesNotMatch(response.body, /<script(?![^>]*\bsrc=)[^>]*>/);
      assert.doesNotMatch(response.body, /(src|href)="(https?:)?\/\//);
    });

    it('serves every asset the page names, with long caching, and answers 404 for any other path', async () => {
      const page = await t.request({ method: 'GET', url: '/console' });
      const assets = [...page.body.matchAll(/(?:src|href)="(\/console\/assets\/[^"]+)"/g)].map((m) => m[1]!);
      assert.ok(assets.length >= 2, `expected a script and a stylesheet in ${page.body}`);
      for (const asset of assets) {
        const response = await t.request({ method: 'GET', url: asset });
        assert.equal(response.statusCode, 200, asset);
        assert.match(String(response.headers['cache-control']), /immutable/);
        assert.ok(response.headers['content-security-policy']);
      }
      for (const url of [
        '/console/assets/nope.js',
        '/console/../package.json',
        '/console/%2e%2e/package.json',
        '/docs/nope.js',
      ]) {
        const response = await t.request({ method: 'GET', url });
        assert.equal(response.statusCode, 404, url);
        assert.equal(response.json().errors[0].code, 'ROUTE_NOT_FOUND');
      }
    });

    it('serves the API reference at /docs from files on this origin; styles inline only there', async () => {
      const page = await t.request({ method: 'GET', url: '/docs' });
      assert.equal(page.statusCode, 200);
      assert.match(page.body, /src="\/docs\/scalar\.js"/);
      const csp = String(page.headers['content-security-policy']);
      assert.match(csp, /script-src 'self'(;|$)/);
      assert.match(csp, /style-src 'self' 'unsafe-inline'/);
      const scalar = await t.request({ method: 'GET', url: '/docs/scalar.js' });
      assert.equal(scalar.statusCode, 200);
      assert.match(String(scalar.headers['content-type']), /^text\/javascript/);
      const compressed = await t.request({
        method: 'GET',
        url: '/docs/scalar.js',
        headers: { 'accept-encoding': 'gzip, br' },
      });
      assert.equal(compressed.headers['content-encoding'], 'gzip');
      assert.equal(gunzipSync(compressed.rawPayload).length, scalar.rawPayload.length);
      const init = await t.request({ method: 'GET', url: '/docs/docs-init.js' });
      assert.match(init.body, /\/openapi\.json/);
      assert.match(init.body, /withDefaultFonts: false/);
    });

    it('keeps the first load (HTML, JS and CSS, gzipped) within 150 KB', () => {
      const html = readFileSync(join(CONSOLE_BUILD_DIR, 'index.html'), 'utf8');
      const files = [...html.matchAll(/(?:src|href)="\/console\/(assets\/[^"]+)"/g)].map((m) =>
        join(CONSOLE_BUILD_DIR, m[1]!),
      );
      const total = [html, ...files.map((f) => readFileSync(f))].reduce((sum, body) => sum + gzipSync(body).length, 0);
      assert.ok(total <= FIRST_LOAD_BUDGET_BYTES, `first load is ${total} bytes gzipped`);
    });
  });

  describe(`web console turned off (${dialect})`, () => {
    let t: TestApp;
    before(async () => {
      t = await startTestApp(dialect, {
        server: { port: 0, host: '127.0.0.1', cors: { origins: [] }, bodyLimitBytes: 1048576, console: false },
      });
    });
    after(() => t?.close());

    it('answers 404 at /console and /docs with `server.console: false`', async () => {
      for (const url of ['/console', '/console/index.html', '/docs', '/docs/scalar.js']) {
        const response = await t.request({ method: 'GET', url });
        assert.equal(response.statusCode, 404, url);
      }
    });
  });
}

describe('web console files held and read', () => {
  it('holds the console in memory but reads the reference script from disk, each byte the same', async () => {
    await ensureConsoleBuilt();
    // A copy of the build of its own: the shared read of the real one is left as the server has it.
    const dir = mkdtempSync(join(tmpdir(), 'svc-console-files-'));
    try {
      cpSync(CONSOLE_BUILD_DIR, dir, { recursive: true });
      const files = readConsoleFiles(dir)!;
      const scalar = files.get('/docs/scalar.js')!;
      assert.ok(scalar.size > HELD_BYTES, `the reference script is ${scalar.size} bytes`);
      assert.equal(scalar.body, undefined, 'not held');
      const index = files.get('/console/index.html')!;
      assert.ok(index.body !== undefined, 'the console page is held');
      const onDisk = readFileSync(join(dir, 'docs', 'scalar.js'));
      assert.ok((await bodyOf(scalar)).equals(onDisk));
      assert.ok(gunzipSync(await gzippedBody(scalar)!).equals(onDisk));
      assert.equal(scalar.body, undefined, 'still not held after it was read');
      assert.equal(statSync(join(dir, 'docs', 'scalar.js')).size, scalar.size);
      // Gone since start (a rebuild under a running service): the read fails, nothing stale is kept.
      rmSync(join(dir, 'docs', 'scalar.js'));
      const vanished: ConsoleFile = { ...scalar, gzipped: undefined };
      await assert.rejects(Promise.resolve(bodyOf(vanished)), { code: 'ENOENT' });
      await assert.rejects(gzippedBody(vanished)!, { code: 'ENOENT' });
      assert.equal(vanished.gzipped, undefined, 'a failed compression is not kept');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

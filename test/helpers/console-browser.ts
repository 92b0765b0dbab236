// Start-up for the console's browser tests: headless Chromium (skipped where it is not installed), the
// test app listening on 127.0.0.1, a page that may reach only that address, signing in as a user, and
// axe's check for serious accessibility problems.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import type { TestApp } from './test-app.ts';

export const CHROMIUM = '/usr/bin/chromium';
export const BROWSER_WAIT = { timeout: 15_000 };

/** The reason the browser tests are skipped here, or false when Chromium is present. */
export const browserSkip: string | false = existsSync(CHROMIUM)
  ? false
  : `${CHROMIUM} is not installed: the console's browser tests are skipped`;

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
  });
}

/** Listens on an ephemeral port of 127.0.0.1 and answers the base URL. */
export async function listenOnLoopback(t: TestApp): Promise<string> {
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  const address = t.app.server.address();
  if (address === null || typeof address === 'string') throw new Error('not listening on TCP');
  return `http://127.0.0.1:${address.port}`;
}

/** A fresh context on the console's sign-in page; requests anywhere but 127.0.0.1 are refused. */
export async function openConsole(browser: Browser, base: string): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, acceptDownloads: true });
  await context.route(/^(?!http:\/\/127\.0\.0\.1:)/, (route) => route.abort());
  const page = await context.newPage();
  await page.goto(`${base}/console`);
  return { context, page };
}

export async function signInConsole(page: Page, email: string, password: string): Promise<void> {
  await page.getByLabel('Email', { exact: true }).fill(email);
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByText(`Signed in as ${email}`).waitFor(BROWSER_WAIT);
}

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** Fails on axe's serious and critical violations in the page as it is now. */
export async function checkAccessibility(page: Page, view: string): Promise<void> {
  await page.evaluate(AXE_SOURCE);
  const violations = (await page.evaluate(`axe.run(document, { resultTypes: ['violations'] }).then((result) =>
    result.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => v.id + ' (' + v.impact + '): ' + v.nodes.slice(0, 3).map((n) => JSON.stringify(n.target)).join(', ')))`)) as string[];
  assert.deepEqual(violations, [], `accessibility problems on ${view}`);
}

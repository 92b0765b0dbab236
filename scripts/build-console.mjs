// Builds the web console (console/, Vite + Svelte) into dist/console/ and copies Scalar's prebuilt
// API reference next to it for /docs. The server serves exactly these files; nothing is fetched at run time.
// Skipped with a notice when Vite is absent (an install without dev dependencies): the API works without it.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { copyFile, mkdir, mkdtemp, rename, rm } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const outDir = `${root}dist/console`;

// /docs needs one file of Scalar's API reference, its prebuilt browser bundle. The npm package is not a
// dev dependency: it pulls in ~260 others (Vue, an AI SDK, …) that declare Node >= 22, so installing it
// on Node 20 printed dozens of EBADENGINE warnings for a file that only ever runs in a browser. Its
// tarball is fetched through npm instead (the npm cache serves it offline), pinned by version and
// checked against this integrity, and the bundle is kept under node_modules/.cache/. To upgrade, change
// both (`npm view @scalar/api-reference@VERSION dist.integrity`).
const SCALAR = {
  version: '1.76.0',
  integrity: 'sha512-pjqwnzmA9YK3ZX+IZSICMsywm4qI6HLSngR2py9H6TvFApHHuJjkTAd+gFJfnqJDzJuro8k7ji6JCtJ2U+Byng==',
};

function run(command, args, cwd) {
  const result = spawnSync(command, args, { cwd, encoding: 'utf8', shell: process.platform === 'win32' });
  if (result.status !== 0)
    throw new Error(`${command} ${args.join(' ')} failed: ${result.error?.message ?? result.stderr}`);
  return result.stdout;
}

/** How long one `npm pack` of Scalar may take: it took 1 s, but a stalled registry connection once hung CI for 15 minutes. */
const FETCH_TIMEOUT_MS = 120_000;

/**
 * Runs a command that fetches over the network with a time limit, once more if it fails or stalls (a
 * stall is usually one bad connection; a second try gets a new one), and then gives up with an error
 * that says what was tried. Exported for its test.
 */
export function runFetching(command, args, cwd, { timeoutMs = FETCH_TIMEOUT_MS, attempts = 2 } = {}) {
  const failures = [];
  for (let attempt = 1; attempt <= attempts; attempt++) {
    const result = spawnSync(command, args, {
      cwd,
      encoding: 'utf8',
      timeout: timeoutMs,
      killSignal: 'SIGKILL',
      shell: process.platform === 'win32',
    });
    if (result.status === 0) return result.stdout;
    failures.push(
      result.error?.code === 'ETIMEDOUT'
        ? `attempt ${attempt} gave no answer within ${timeoutMs / 1000} s and was stopped`
        : `attempt ${attempt} failed: ${(result.error?.message ?? result.stderr ?? '').trim() || `exit status ${result.status}`}`,
    );
  }
  throw new Error(
    `${command} ${args.join(' ')}: ${failures.join('; ')}. Check that the npm registry (or the npm cache) is reachable and build again.`,
  );
}

/** The path of Scalar's standalone bundle, fetched and checked on first use. */
async function scalarBundle() {
  const cacheDir = `${root}node_modules/.cache/svc-build`;
  const cached = `${cacheDir}/scalar-api-reference-${SCALAR.version}-standalone.js`;
  if (existsSync(cached)) return cached;
  await mkdir(cacheDir, { recursive: true });
  // A folder of its own, then one rename: a concurrent build never sees half a file.
  const work = await mkdtemp(`${cacheDir}/scalar-`);
  try {
    const packed = JSON.parse(
      runFetching(
        'npm',
        ['pack', `@scalar/api-reference@${SCALAR.version}`, '--pack-destination', work, '--prefer-offline', '--json'],
        work,
      ),
    );
    const tarball = `${work}/${packed[0].filename}`;
    const integrity = `sha512-${createHash('sha512').update(readFileSync(tarball)).digest('base64')}`;
    if (integrity !== SCALAR.integrity)
      throw new Error(`@scalar/api-reference@${SCALAR.version}: integrity ${integrity}, expected ${SCALAR.integrity}`);
    run('tar', ['-xzf', tarball, '-C', work, 'package/dist/browser/standalone.js'], work);
    await rename(`${work}/package/dist/browser/standalone.js`, cached);
  } finally {
    await rm(work, { recursive: true, force: true });
  }
  return cached;
}

export async function buildConsole() {
  let vite;
  try {
    vite = await import('vite');
  } catch {
    console.warn('svc: vite is not installed; the web console (/console, /docs) is not built');
    return false;
  }
  await rm(outDir, { recursive: true, force: true });
  await vite.build({ configFile: `${root}console/vite.config.ts`, logLevel: 'warn' });
  await mkdir(`${outDir}/docs`, { recursive: true });
  await copyFile(await scalarBundle(), `${outDir}/docs/scalar.js`);
  await copyFile(`${root}console/docs/index.html`, `${outDir}/docs/index.html`);
  await copyFile(`${root}console/docs/docs-init.js`, `${outDir}/docs/docs-init.js`);
  return true;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await buildConsole();

// Builds the web console (console/, Vite + Svelte) into dist/console/ and copies Scalar's prebuilt
// API reference next to it for /docs. The server serves exactly these files; nothing is fetched at run time.
// Skipped with a notice when Vite is absent (an install without dev dependencies): the API works without it.
import { copyFile, mkdir, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const outDir = `${root}dist/console`;

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
  // The prebuilt browser bundle is not in the package's exports: found from its main entry instead.
  const require = createRequire(import.meta.url);
  const main = require.resolve('@scalar/api-reference');
  const scalar = `${main.slice(0, main.lastIndexOf('/dist/'))}/dist/browser/standalone.js`;
  await mkdir(`${outDir}/docs`, { recursive: true });
  await copyFile(scalar, `${outDir}/docs/scalar.js`);
  await copyFile(`${root}console/docs/index.html`, `${outDir}/docs/index.html`);
  await copyFile(`${root}console/docs/docs-init.js`, `${outDir}/docs/docs-init.js`);
  return true;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await buildConsole();

// The declarations of svc/client (dist/client/*.d.ts), emitted by tsc from src/client/ alone, with the
// `.ts` import extensions rewritten to `.js` so consumers' resolvers find them.
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const out = `${root}dist/client`;

export async function buildClientTypes() {
  let tsc;
  try {
    tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  } catch {
    console.warn('svc: typescript is not installed; svc/client is built without its declarations');
    return false;
  }
  for (const file of readdirSync(out)) if (file.endsWith('.d.ts')) rmSync(`${out}/${file}`);
  const result = spawnSync(
    process.execPath,
    [
      tsc,
      '--declaration',
      '--emitDeclarationOnly',
      '--rewriteRelativeImportExtensions',
      '--allowImportingTsExtensions',
      '--strict',
      '--target',
      'ES2022',
      '--module',
      'NodeNext',
      '--moduleResolution',
      'NodeNext',
      '--lib',
      'ES2022,DOM',
      '--skipLibCheck',
      '--outDir',
      out,
      `${root}src/client/index.ts`,
    ],
    { encoding: 'utf8' },
  );
  if (result.status !== 0) throw new Error(`svc/client declarations: ${result.stdout}${result.stderr}`);
  // tsc keeps `.ts` in type-only re-exports; the emitted files are .d.ts beside .js names.
  for (const file of readdirSync(out)) {
    if (!file.endsWith('.d.ts')) continue;
    const text = readFileSync(`${out}/${file}`, 'utf8');
    writeFileSync(`${out}/${file}`, text.replace(/(from '\.\/[a-z-]+)\.ts'/g, "$1.js'"));
  }
  return true;
}

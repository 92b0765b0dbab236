// Bundles the TypeScript sources into dist/bundle/ (cli.mjs and index.mjs), so the service runs on plain
// Node without tsx's loader: ~40 MB less memory and a faster start. bin/svc.js uses the bundle only
// while it is newer than every source file, so an edit never runs stale code.
// The bundle sits two folders deep, like every source file (src/<dir>/x.ts), so the relative URLs the
// sources resolve from import.meta.url (../../examples, ../../package.json) stay right.
// The pure JavaScript dependencies go into the bundle too, so that a user's install fetches fewer
// packages; package.json lists only those that stay outside it (EXTERNAL below).
// esbuild and Vite are dev dependencies: an install without them skips the build with a notice, but
// `npm pack` and `npm publish` (which run this as `prepack`) fail, so no package ships without it.
// `--if-missing` (npm start's prestart and npm test's pretest) builds only when a fresh clone has no bundle or
// console yet: the process and end-to-end tests run the built bundle.
import { spawnSync } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { EXTERNAL } from './bundle-externals.mjs';

const packing = ['pack', 'publish'].includes(process.env.npm_command ?? '');

if (
  process.argv.includes('--if-missing') &&
  existsSync(new URL('../dist/bundle/cli.mjs', import.meta.url)) &&
  existsSync(new URL('../dist/console/index.html', import.meta.url))
) {
  process.exit(0);
}

let build;
try {
  ({ build } = await import('esbuild'));
} catch (error) {
  if (packing) throw error;
  console.warn('svc: esbuild is not installed; the bundle is not built (bin/svc.js runs src/ through tsx if present)');
  process.exit(0);
}

// Two entries, the `svc` command (cli.mjs) and the library (index.mjs, `import … from 'svc'`), sharing
// their code in chunks beside them: a hooks file that imports 'svc' gets the very modules `svc start`
// runs. The old single-file bundle's chunks are replaced, never left to pile up.
const bundleDir = new URL('../dist/bundle/', import.meta.url).pathname;
rmSync(bundleDir, { recursive: true, force: true });
await build({
  entryPoints: {
    cli: new URL('../src/cli/cli.ts', import.meta.url).pathname,
    index: new URL('../src/index.ts', import.meta.url).pathname,
  },
  outdir: bundleDir,
  outExtension: { '.js': '.mjs' },
  splitting: true,
  chunkNames: 'chunk-[hash]',
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  external: EXTERNAL,
  // Bundled CommonJS calls require() for Node's own modules; in an ES module that needs a require of
  // its own (esbuild's shim uses the one in scope).
  banner: {
    js: "import { createRequire as __svcCreateRequire } from 'node:module'; const require = __svcCreateRequire(import.meta.url);",
  },
  // Whitespace and comments out: V8 keeps every loaded module's source text in memory, and one
  // non-Latin-1 character in a dependency's comment doubles its string (two bytes per character).
  // Names stay, so a stack trace still reads; the linked map gives its source lines.
  minifyWhitespace: true,
  // Dependencies' license comments go to a .LEGAL.txt file beside each chunk rather than into its source.
  legalComments: 'linked',
  sourcemap: 'linked',
  // The map names each source file and line (for `node --enable-source-maps`) without carrying the
  // sources themselves into the package.
  sourcesContent: false,
  logLevel: 'warning',
});

// The library's TypeScript declarations (dist/types/), from its public entry src/index.ts and what it
// names: tsc writes them (tsconfig.types.json). A minute of type checking: done for the package (npm
// pack, publish) and when asked (`node scripts/build.mjs --types`), not for every build of a checkout.
const withTypes = packing || process.argv.includes('--types');
let tsc;
if (withTypes) {
  try {
    tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  } catch (error) {
    if (packing) throw error;
    console.warn('svc: typescript is not installed; the type declarations are not built');
  }
}
if (tsc) {
  rmSync(new URL('../dist/types/', import.meta.url).pathname, { recursive: true, force: true });
  const types = spawnSync(process.execPath, [tsc, '-p', new URL('../tsconfig.types.json', import.meta.url).pathname], {
    stdio: 'inherit',
  });
  if (types.status !== 0) throw new Error('the type declarations were not built (tsc -p tsconfig.types.json failed)');
}

// svc/client: its own small entry for browsers and Node, no dependencies, minified; its declarations
// come from tsc (scripts/build-client-types.mjs).
await build({
  entryPoints: [new URL('../src/client/index.ts', import.meta.url).pathname],
  outfile: new URL('../dist/client/index.mjs', import.meta.url).pathname,
  bundle: true,
  platform: 'neutral',
  format: 'esm',
  target: 'es2022',
  minify: true,
  sourcemap: 'linked',
  sourcesContent: false,
  logLevel: 'warning',
});
const { buildClientTypes } = await import('./build-client-types.mjs');
await buildClientTypes();

// The web console and API reference (dist/console/), served by the service at /console and /docs.
const { buildConsole } = await import('./build-console.mjs');
if (!(await buildConsole()) && packing) throw new Error('the web console was not built: the package would have none');

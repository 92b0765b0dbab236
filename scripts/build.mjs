// Bundles the TypeScript sources into dist/bundle/cli.mjs (dependencies stay in node_modules), so the
// service runs on plain Node without tsx's loader: ~40 MB less memory and a faster start. bin/svc.js
// uses the bundle only while it is newer than every source file, so an edit never runs stale code.
// The bundle sits two folders deep, like every source file (src/<dir>/x.ts), so the relative URLs the
// sources resolve from import.meta.url (../../examples, ../../package.json) stay right.
// esbuild and Vite are dev dependencies: an install without them skips the build with a notice, but
// `npm pack` and `npm publish` (which run this as `prepare`) fail, so no package ships without it.
const packing = ['pack', 'publish'].includes(process.env.npm_command ?? '');

let build;
try {
  ({ build } = await import('esbuild'));
} catch (error) {
  if (packing) throw error;
  console.warn('svc: esbuild is not installed; the bundle is not built (bin/svc.js runs src/ through tsx if present)');
  process.exit(0);
}

await build({
  entryPoints: [new URL('../src/cli/cli.ts', import.meta.url).pathname],
  outfile: new URL('../dist/bundle/cli.mjs', import.meta.url).pathname,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  packages: 'external',
  sourcemap: 'linked',
  // The map names each source file and line (for `node --enable-source-maps`) without carrying the
  // sources themselves into the package.
  sourcesContent: false,
  logLevel: 'warning',
});

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

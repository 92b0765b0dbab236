// Bundles the TypeScript sources into dist/bundle/cli.mjs (dependencies stay in node_modules), so the
// service runs on plain Node without tsx's loader: ~40 MB less memory and a faster start. bin/svc.js
// uses the bundle only while it is newer than every source file, so an edit never runs stale code.
// The bundle sits two folders deep, like every source file (src/<dir>/x.ts), so the relative URLs the
// sources resolve from import.meta.url (../../examples, ../../package.json) stay right.
import { build } from 'esbuild';

await build({
  entryPoints: [new URL('../src/cli/cli.ts', import.meta.url).pathname],
  outfile: new URL('../dist/bundle/cli.mjs', import.meta.url).pathname,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  packages: 'external',
  sourcemap: 'linked',
  logLevel: 'warning',
});

// The web console and API reference (dist/console/), served by the service at /console and /docs.
const { buildConsole } = await import('./build-console.mjs');
await buildConsole();

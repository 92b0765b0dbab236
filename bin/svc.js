#!/usr/bin/env node
// The `svc` command. Runs the bundle that `npm install` builds (dist/bundle/cli.mjs, plain JavaScript:
// less memory, faster start) while it is newer than every source file; otherwise the TypeScript
// sources through tsx, so an edited tree never runs stale code and there is no build step to forget.
import { readdirSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const bundle = new URL('../dist/bundle/cli.mjs', import.meta.url);
const sources = fileURLToPath(new URL('../src', import.meta.url));

function newestMtime(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = `${dir}/${entry.name}`;
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs);
  }
  return newest;
}

function bundleIsFresh() {
  try {
    return statSync(bundle).mtimeMs >= newestMtime(sources);
  } catch {
    return false;
  }
}

// `svc openapi | head` closes the pipe early; that is not an error.
process.stdout.on('error', (error) => {
  if (error.code === 'EPIPE') process.exit(0);
  throw error;
});
let cli;
if (process.env.SVC_FROM_SOURCE !== '1' && bundleIsFresh()) {
  cli = await import(bundle.href);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  cli = await import('../src/cli/cli.ts');
}
const code = await cli.main(process.argv.slice(2));
// A failed command may leave handles open (a database pool, a half-started server): exit now.
if (code !== 0) process.exit(code);
process.exitCode = code;

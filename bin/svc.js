#!/usr/bin/env node
// The `svc` command. Runs the bundle (dist/bundle/cli.mjs, plain JavaScript: less memory, faster
// start). The installed package has no sources and always runs it. Only in a source checkout (src/
// present) whose bundle is missing or older than a source file does it run the TypeScript sources
// through tsx (a dev dependency), so an edited tree never runs stale code; `npm run dev` asks for that.
import { existsSync, readdirSync, statSync } from 'node:fs';
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
async function importSources() {
  let tsx;
  try {
    tsx = await import('tsx/esm/api');
  } catch {
    process.stderr.write(
      'svc: running from src/ needs tsx, a dev dependency: run `npm install`, or `npm run build` for the bundle\n',
    );
    process.exit(1);
  }
  tsx.register();
  return import('../src/cli/cli.ts');
}

const sourceCheckout = existsSync(sources);
const fromSource = sourceCheckout && (process.env.SVC_FROM_SOURCE === '1' || !bundleIsFresh());
const cli = fromSource ? await importSources() : await import(bundle.href);
const code = await cli.main(process.argv.slice(2));
// A failed command may leave handles open (a database pool, a half-started server): exit now.
if (code !== 0) process.exit(code);
process.exitCode = code;

// Makes sure dist/console/ holds a build of the current console/ sources before a test serves it:
// rebuilt (Vite, a few seconds) only when a source file is newer than the built index.html.
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
// The console imports svc/client from src/client/: a change there is a change of the console too.
const SOURCES = [join(ROOT, 'console'), join(ROOT, 'src/client'), join(ROOT, 'scripts/build-console.mjs')];
export const BUILT_INDEX = join(ROOT, 'dist/console/index.html');

function newest(path: string): number {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let latest = 0;
  for (const entry of readdirSync(path)) latest = Math.max(latest, newest(join(path, entry)));
  return latest;
}

export async function ensureConsoleBuilt(): Promise<void> {
  let builtAt = 0;
  try {
    builtAt = statSync(BUILT_INDEX).mtimeMs;
  } catch {
    builtAt = 0;
  }
  if (builtAt >= Math.max(...SOURCES.map(newest))) return;
  const { buildConsole } = (await import(join(ROOT, 'scripts/build-console.mjs'))) as {
    buildConsole(): Promise<boolean>;
  };
  if (!(await buildConsole())) throw new Error('the console could not be built (is vite installed?)');
}

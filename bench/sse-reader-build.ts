// Builds bench/sse-reader.c with the machine's C compiler ($CC, else cc), once per version of the
// source: the binary is cached under node_modules/.cache by the source's hash.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const SOURCE = fileURLToPath(new URL('./sse-reader.c', import.meta.url));
const CACHE = fileURLToPath(new URL('../node_modules/.cache/svc-bench/', import.meta.url));

/** The reader's path, or why it could not be built. */
export async function buildSseReader(compiler = process.env.CC || 'cc'): Promise<{ path: string } | { error: string }> {
  const hash = createHash('sha256').update(readFileSync(SOURCE)).digest('hex').slice(0, 16);
  const path = join(CACHE, `sse-reader-${hash}`);
  if (existsSync(path)) return { path };
  mkdirSync(CACHE, { recursive: true });
  // Built aside and renamed, so that an interrupted build never leaves a broken binary at `path`.
  const building = `${path}.${process.pid}`;
  try {
    await run(compiler, ['-O2', '-Wall', '-Wextra', '-o', building, SOURCE], { timeout: 60_000 });
    renameSync(building, path);
    return { path };
  } catch (error) {
    const { stderr, message } = error as { stderr?: string; message: string };
    return {
      error: `${compiler} could not build bench/sse-reader.c: ${(stderr || message).trim().split('\n').slice(0, 3).join(' ')}`,
    };
  }
}

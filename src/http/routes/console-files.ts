// The built web console and API reference (dist/console/, made by scripts/build-console.mjs): a fixed
// map from URL path to file, made once, so a request can only ever get one of these files. The console's
// own files are read into memory then; a large one (the reference's script, ~5 MB) is read from disk
// when asked for, so a service whose /docs nobody opens does not hold it.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, extname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';

const gzipAsync = promisify(gzip);

export const CONSOLE_BUILD_DIR = join(packageRoot(dirname(fileURLToPath(import.meta.url))), 'dist', 'console');

/**
 * The folder holding svc's package.json, found upwards from this module: the source file and the bundle
 * (dist/bundle/) sit at different depths, and a fixed relative URL broke when either moved.
 */
function packageRoot(from: string): string {
  for (let dir = from; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    if (dirname(dir) === dir) return from;
  }
}

export interface ConsoleFile {
  path: string;
  size: number;
  type: string;
  /** Vite names its assets by content hash: they never change under the same name. */
  immutable: boolean;
  /** The bytes, for a file read at start; a larger one has none and is read when asked for. */
  body: Buffer | undefined;
  /** Compressed on first request and kept (the reference's script is ~5 MB, ~1.4 MB gzipped). */
  gzipped?: Promise<Buffer>;
}

const COMPRESSIBLE_BYTES = 1024;
/** Files up to this size are held in memory from the start. */
export const HELD_BYTES = 512 * 1024;

/** The file's bytes: held, or read from disk. */
export function bodyOf(file: ConsoleFile): Promise<Buffer> | Buffer {
  return file.body ?? readFile(file.path);
}

/** The file's gzip form, made once; null when it is too small to be worth it. */
export function gzippedBody(file: ConsoleFile): Promise<Buffer> | null {
  if (file.size < COMPRESSIBLE_BYTES || file.type.startsWith('image/png') || file.type.startsWith('font/')) return null;
  if (!file.gzipped) {
    const made = Promise.resolve(bodyOf(file)).then((body) => gzipAsync(body));
    // A failed read is tried again by the next request rather than kept.
    made.catch(() => {
      if (file.gzipped === made) file.gzipped = undefined;
    });
    file.gzipped = made;
  }
  return file.gzipped;
}

const TYPES = new Map<string, string>([
  ['.html', 'text/html; charset=utf-8'],
  ['.js', 'text/javascript; charset=utf-8'],
  ['.css', 'text/css; charset=utf-8'],
  ['.svg', 'image/svg+xml'],
  ['.png', 'image/png'],
  ['.ico', 'image/x-icon'],
  ['.woff2', 'font/woff2'],
  ['.json', 'application/json'],
]);

function walk(dir: string, found: string[]): void {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) walk(path, found);
    else if (entry.isFile()) found.push(path);
  }
}

/** The last build read, shared by every app in the process (tests build many) until index.html changes. */
let lastRead: { dir: string; builtAt: number; files: Map<string, ConsoleFile> } | null = null;

/** Files by URL path (`/console/assets/x.js`, `/docs/scalar.js`); null when the console was never built. */
export function readConsoleFiles(dir: string = CONSOLE_BUILD_DIR): Map<string, ConsoleFile> | null {
  let builtAt: number;
  try {
    const index = statSync(join(dir, 'index.html'));
    if (!index.isFile()) return null;
    builtAt = index.mtimeMs;
  } catch {
    return null;
  }
  if (lastRead !== null && lastRead.dir === dir && lastRead.builtAt === builtAt) return lastRead.files;
  const files = new Map<string, ConsoleFile>();
  const paths: string[] = [];
  walk(dir, paths);
  for (const path of paths) {
    const type = TYPES.get(extname(path));
    // Source maps and anything unexpected stay on disk.
    if (type === undefined) continue;
    const name = relative(dir, path).split(sep).join('/');
    const url = name.startsWith('docs/') ? `/${name}` : `/console/${name}`;
    const size = statSync(path).size;
    const body = size <= HELD_BYTES ? readFileSync(path) : undefined;
    files.set(url, { path, size, body, type, immutable: name.startsWith('assets/') });
  }
  lastRead = { dir, builtAt, files };
  return files;
}

// The built web console and API reference (dist/console/, made by scripts/build-console.mjs), read once
// into memory: a fixed map from URL path to bytes, so a request can only ever get one of these files.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, extname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

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
  body: Buffer;
  type: string;
  /** Vite names its assets by content hash: they never change under the same name. */
  immutable: boolean;
  /** Compressed on first request and kept (the reference's script is ~5 MB, ~1.4 MB gzipped). */
  gzipped?: Buffer;
}

const COMPRESSIBLE_BYTES = 1024;

/** The file's gzip form, made once; null when it is too small to be worth it. */
export function gzippedBody(file: ConsoleFile): Buffer | null {
  if (file.body.length < COMPRESSIBLE_BYTES || file.type.startsWith('image/png') || file.type.startsWith('font/'))
    return null;
  file.gzipped ??= gzipSync(file.body);
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
    files.set(url, { body: readFileSync(path), type, immutable: name.startsWith('assets/') });
  }
  lastRead = { dir, builtAt, files };
  return files;
}

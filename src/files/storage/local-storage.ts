// The local driver: one file per key under a folder. Writes go to a temporary name first and are renamed
// into place, so a reader never sees half a file and a failed upload leaves none. Folders and files are
// created owner-only (0700, 0600) whatever the umask: uploads may be protected files that only svc's
// signed links should hand out.
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, readdir, rename, rm, stat } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ByteRange, FileStorage, StoredObject, WrittenObject } from './file-storage.ts';
import { HashingCounter } from './hashing-counter.ts';

const PARTIAL_SUFFIX = '.partial';
const FOLDER_MODE = 0o700;
const FILE_MODE = 0o600;

export class LocalStorage implements FileStorage {
  readonly #root: string;

  constructor(dir: string) {
    this.#root = resolve(dir);
  }

  /** The path of a key; keys are built by the service, but one that escapes the folder is refused anyway. */
  #path(key: string): string {
    const path = resolve(this.#root, key);
    if (!path.startsWith(this.#root + sep) || key.includes('\0'))
      throw new Error(`storage key escapes the folder: ${key}`);
    return path;
  }

  // The type is the record's to keep; a file on disk has none.
  async put(key: string, body: Readable, _contentType: string): Promise<WrittenObject> {
    const path = this.#path(key);
    await mkdir(dirname(path), { recursive: true, mode: FOLDER_MODE });
    const partial = `${path}.${randomUUID()}${PARTIAL_SUFFIX}`;
    const counter = new HashingCounter();
    try {
      await pipeline(body, counter, createWriteStream(partial, { flags: 'wx', mode: FILE_MODE }));
      await rename(partial, path);
    } catch (error) {
      await rm(partial, { force: true });
      throw error;
    }
    return counter.written();
  }

  async get(key: string, range?: ByteRange): Promise<Readable | undefined> {
    const path = this.#path(key);
    if ((await this.head(key)) === undefined) return undefined;
    return createReadStream(path, range ? { start: range.start, end: range.end } : {});
  }

  async head(key: string): Promise<StoredObject | undefined> {
    try {
      const info = await stat(this.#path(key));
      return info.isFile() ? { key, size: info.size, modifiedAt: info.mtime } : undefined;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
  }

  async move(from: string, to: string): Promise<void> {
    const target = this.#path(to);
    await mkdir(dirname(target), { recursive: true, mode: FOLDER_MODE });
    await rename(this.#path(from), target);
  }

  async delete(key: string): Promise<void> {
    await rm(this.#path(key), { force: true });
  }

  async *list(prefix: string): AsyncIterable<StoredObject> {
    // Walks only the folders the prefix can reach: `a/b/c` starts at `a/b`.
    const cut = prefix.lastIndexOf('/');
    const start = cut < 0 ? this.#root : this.#path(prefix.slice(0, cut));
    const pending = [start];
    while (pending.length > 0) {
      const dir = pending.pop() as string;
      let entries: import('node:fs').Dirent[];
      try {
        entries = await readdir(dir, { withFileTypes: true });
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue;
        throw error;
      }
      for (const entry of entries) {
        const path = join(dir, entry.name);
        const key = relative(this.#root, path).split(sep).join('/');
        if (entry.isDirectory()) {
          if (key.startsWith(prefix) || prefix.startsWith(`${key}/`)) pending.push(path);
        } else if (entry.isFile() && key.startsWith(prefix) && !key.endsWith(PARTIAL_SUFFIX)) {
          // A file removed since the folder was read is simply no longer listed.
          const info = await stat(path).catch((error: NodeJS.ErrnoException) => {
            if (error.code === 'ENOENT') return undefined;
            throw error;
          });
          if (info) yield { key, size: info.size, modifiedAt: info.mtime };
        }
      }
    }
  }

  async removeStaleWrites(before: Date): Promise<number> {
    let removed = 0;
    let entries: import('node:fs').Dirent[];
    try {
      entries = await readdir(this.#root, { withFileTypes: true, recursive: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 0;
      throw error;
    }
    for (const entry of entries) {
      if (!entry.isFile() || !entry.name.endsWith(PARTIAL_SUFFIX)) continue;
      const path = join(entry.parentPath, entry.name);
      const info = await stat(path).catch(() => undefined);
      // A write still streaming touches its file as bytes arrive: only an old one is abandoned.
      if (info === undefined || info.mtime >= before) continue;
      await rm(path, { force: true });
      removed++;
    }
    return removed;
  }

  async close(): Promise<void> {}
}

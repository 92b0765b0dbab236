// The local driver writes each upload to `<key>.<uuid>.partial` and renames it into place; a process
// killed mid-write leaves the partial file, which no listing shows. The retention pass removes such
// leftovers once older than the grace period, and leaves a write still in progress (a fresh one) alone.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { LocalStorage } from '../../src/files/storage/local-storage.ts';
import { ORPHAN_GRACE_MS } from '../../src/files/storage-audit.ts';

describe('local storage: partial files a crash left', () => {
  let dir: string;
  let storage: LocalStorage;

  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'svc-partials-'));
    storage = new LocalStorage(dir);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('removes partial files older than the grace period, keeps fresh ones and every stored file', async () => {
    await storage.put('profiles/r1/avatar/f1', Readable.from([Buffer.from('kept')]), 'text/plain');
    mkdirSync(join(dir, 'tmp'), { recursive: true });
    const stale = join(dir, 'tmp', 'f2.5f0c6a4e-0000-4000-8000-000000000000.partial');
    const deep = join(dir, 'profiles', 'r1', 'avatar', 'f3.5f0c6a4e-0000-4000-8000-000000000001.partial');
    const fresh = join(dir, 'tmp', 'f4.5f0c6a4e-0000-4000-8000-000000000002.partial');
    for (const path of [stale, deep, fresh]) writeFileSync(path, 'half an upload');
    const longAgo = new Date(Date.now() - ORPHAN_GRACE_MS - 60_000);
    utimesSync(stale, longAgo, longAgo);
    utimesSync(deep, longAgo, longAgo);
    const listed = [];
    for await (const object of storage.list('')) listed.push(object.key);
    assert.deepEqual(listed, ['profiles/r1/avatar/f1'], 'listings never show partial files');

    const removed = await storage.removeStaleWrites(new Date(Date.now() - ORPHAN_GRACE_MS));
    assert.equal(removed, 2);
    assert.equal(existsSync(stale), false);
    assert.equal(existsSync(deep), false);
    assert.equal(existsSync(fresh), true, 'a write younger than the grace period may still be streaming');
    assert.equal(existsSync(join(dir, 'profiles/r1/avatar/f1')), true);
  });

  it('leaves an upload in progress alone, and its own failure removes its partial file', async () => {
    const body = new PassThrough();
    const writing = storage.put('tmp/f5', body, 'application/octet-stream');
    body.write(Buffer.alloc(1024, 1));
    // Bounded wait for the driver to open its partial file.
    for (let i = 0; i < 100; i++) {
      if ((await partialsUnder(join(dir, 'tmp'))).some((name) => name.startsWith('f5.'))) break;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    assert.equal((await partialsUnder(join(dir, 'tmp'))).filter((name) => name.startsWith('f5.')).length, 1);
    assert.equal(await storage.removeStaleWrites(new Date(Date.now() - ORPHAN_GRACE_MS)), 0);
    body.destroy(new Error('client went away'));
    await assert.rejects(writing, /client went away/);
    assert.deepEqual(
      (await partialsUnder(join(dir, 'tmp'))).filter((name) => name.startsWith('f5.')),
      [],
    );
  });
});

async function partialsUnder(dir: string): Promise<string[]> {
  const { readdir } = await import('node:fs/promises');
  return (await readdir(dir)).filter((name) => name.endsWith('.partial'));
}

// The files svc writes on this machine are its owner's alone, whatever the umask: the SQLite database,
// its -wal and -shm, the folders they are created in, the data folder and the generated secret in it.
// (A PostgreSQL database has no files of svc's: its server keeps them.)
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApp } from '../../src/server.ts';
import { testConfig } from '../helpers/test-config.ts';
import { authorizationFor } from '../helpers/test-auth.ts';

const mode = (path: string): string => (statSync(path).mode & 0o777).toString(8);

describe('files svc creates, under a permissive umask', () => {
  const root = mkdtempSync(join(tmpdir(), 'svc-modes-'));
  let umask: number;
  let savedSecret: string | undefined;
  before(() => {
    // Every bit the umask could clear is left set: only svc's own modes can keep others out.
    umask = process.umask(0o000);
    // Without SVC_SECRET, svc generates the identity secret into the data folder.
    savedSecret = process.env.SVC_SECRET;
    delete process.env.SVC_SECRET;
  });
  after(() => {
    process.umask(umask);
    if (savedSecret !== undefined) process.env.SVC_SECRET = savedSecret;
    rmSync(root, { recursive: true, force: true });
  });

  it('creates the database, its -wal and -shm, their folder, the data folder and the secret owner-only', async () => {
    const databaseDir = join(root, 'db', 'nested');
    const dataDir = join(root, 'data');
    const database = join(databaseDir, 'svc.db');
    const config = { ...testConfig(`sqlite:${database}`), dataDir };
    const { app, ctx } = await buildApp({ config });
    try {
      await app.ready();
      // A write, so that the write-ahead log and its index exist with content.
      const editor = await authorizationFor(app, ctx, 'editor', 'editor-modes');
      const created = await app.inject({
        method: 'POST',
        url: '/v1/categories',
        headers: { authorization: editor },
        payload: { name: 'modes' },
      });
      assert.equal(created.statusCode, 201, created.body);
      const files = { database, wal: `${database}-wal`, shm: `${database}-shm`, secret: join(dataDir, 'secret') };
      for (const [name, path] of Object.entries(files)) assert.equal(mode(path), '600', `${name} (${path})`);
      for (const [name, path] of Object.entries({ databaseDir, databaseParent: join(root, 'db'), dataDir }))
        assert.equal(mode(path), '700', `${name} (${path})`);
    } finally {
      await app.close();
      await ctx.store.close().catch(() => {});
    }
  });
});

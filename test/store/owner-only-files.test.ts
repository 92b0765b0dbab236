// The files svc writes on this machine are its owner's alone, whatever the umask: the SQLite database,
// its -wal and -shm, the folders they are created in, the data folder and the generated secret in it,
// and uploaded files with their folders, also when SVC_SECRET is given and the database lives elsewhere
// (the first upload then creates the data folder). A PostgreSQL database has no files of svc's.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApp } from '../../src/server.ts';
import { testConfig } from '../helpers/test-config.ts';
import { authorizationFor } from '../helpers/test-auth.ts';
import { multipartPayload } from '../helpers/multipart-payload.ts';

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

  it('with SVC_SECRET given and the database elsewhere, the first upload creates the data folder, its files folder and the file owner-only', async () => {
    const dataDir = join(root, 'uploads-data');
    const database = join(root, 'elsewhere', 'svc.db');
    process.env.SVC_SECRET = 'a-test-secret-of-at-least-thirty-two-characters';
    const base = testConfig(`sqlite:${database}`);
    const config = {
      ...base,
      dataDir,
      resources: {
        ...base.resources,
        documents: {
          fields: { title: { type: 'string' as const }, scan: { type: 'file' as const } },
          permissions: { editor: { read: true as const, create: true as const } },
        },
      },
    };
    const { app, ctx } = await buildApp({ config });
    try {
      await app.ready();
      assert.throws(() => statSync(dataDir), /ENOENT/, 'nothing needed the data folder before the upload');
      const editor = await authorizationFor(app, ctx, 'editor', 'editor-uploads');
      const { payload, headers } = multipartPayload([
        { name: 'title', value: 'scanned' },
        { name: 'scan', file: Buffer.from('private bytes'), filename: 'scan.txt', type: 'text/plain' },
      ]);
      const created = await app.inject({
        method: 'POST',
        url: '/v1/documents',
        headers: { ...headers, authorization: editor },
        payload,
      });
      assert.equal(created.statusCode, 201, created.body);
      const stored = readdirSync(dataDir, { recursive: true, withFileTypes: true });
      const files = stored.filter((entry) => entry.isFile());
      assert.equal(files.length, 1, 'the upload is one file under the data folder');
      for (const entry of stored) {
        const path = join(entry.parentPath, entry.name);
        assert.equal(mode(path), entry.isFile() ? '600' : '700', path);
      }
      assert.equal(mode(dataDir), '700');
      assert.equal(mode(join(dataDir, 'files')), '700');
    } finally {
      delete process.env.SVC_SECRET;
      await app.close();
      await ctx.store.close().catch(() => {});
    }
  });
});

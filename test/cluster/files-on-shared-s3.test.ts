// Two real `svc start` processes on one PostgreSQL database and one Redis, sharing an S3 bucket (s3rver on
// 127.0.0.1): a file uploaded through node A downloads from node B, with the caller's key and with the
// signed `url` node A handed out (the nodes share the service secret), and node B makes its thumbnail.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { createTestDatabase, type TestDatabase } from '../helpers/test-databases.ts';
import { type SvcProcess, writeConfigFile } from '../helpers/svc-process.ts';
import { createUser, signIn, startNodes } from '../helpers/svc-nodes.ts';
import { s3StorageOf, startS3TestServer, type S3TestServer } from '../helpers/s3-test-server.ts';

const SKIP =
  !process.env.TEST_DATABASE_URL || !process.env.TEST_REDIS_URL
    ? 'TEST_DATABASE_URL and TEST_REDIS_URL are both needed'
    : false;
if (SKIP) process.stdout.write(`# SKIP files on two nodes: ${SKIP}\n`);

const USER = { email: 'f@files.test', password: 'correct horse battery staple', role: 'editor' };

describe('files on two nodes sharing S3 (postgres)', { skip: SKIP, timeout: 120_000 }, () => {
  let database: TestDatabase;
  let s3: S3TestServer;
  let nodes: SvcProcess[] = [];
  let key: string;
  let png: Buffer;

  before(async () => {
    png = await sharp({ create: { width: 90, height: 60, channels: 3, background: '#e76f51' } })
      .png()
      .toBuffer();
    database = await createTestDatabase('postgres');
    s3 = await startS3TestServer();
    const env = { SVC_SECRET: 'files-two-nodes-secret-0123456789abcdef' };
    const configFile = writeConfigFile({
      database: { url: database.url },
      server: { host: '127.0.0.1', port: 0 },
      dataDir: mkdtempSync(join(tmpdir(), 'svc-files-nodes-')),
      redis: { url: process.env.TEST_REDIS_URL },
      storage: s3StorageOf(s3),
      resources: {
        profiles: {
          fields: { name: { type: 'string', required: true }, avatar: { type: 'file', thumbs: ['30x30'] } },
          permissions: { editor: { read: true, create: true, update: true, delete: true } },
        },
      },
    });
    createUser(configFile, env, USER);
    nodes = await startNodes(configFile, env, 2);
    key = await signIn(nodes[0]!, USER);
  });

  after(async () => {
    await Promise.all(nodes.map((node) => node.stop('SIGTERM')));
    await s3?.close();
    await database?.drop();
  });

  it('downloads on node B what node A stored, with the key, with the signed url, and as a thumbnail', async () => {
    const [a, b] = nodes as [SvcProcess, SvcProcess];
    const auth = { authorization: `Bearer ${key}` };
    const created = await fetch(`${a.baseUrl}/v1/profiles`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Ada' }),
    });
    assert.equal(created.status, 201, await created.clone().text());
    const id = ((await created.json()) as { data: { id: string } }).data.id;
    const uploaded = await fetch(`${a.baseUrl}/v1/profiles/${id}/avatar`, {
      method: 'PUT',
      headers: { ...auth, 'content-type': 'image/png', 'content-disposition': 'attachment; filename="face.png"' },
      body: png,
    });
    assert.equal(uploaded.status, 200, await uploaded.clone().text());
    const avatar = ((await uploaded.json()) as { data: { attributes: { avatar: { url: string; sha256: string } } } })
      .data.attributes.avatar;

    const withKey = await fetch(`${b.baseUrl}/v1/profiles/${id}/avatar`, { headers: auth });
    assert.equal(withKey.status, 200);
    assert.deepEqual(Buffer.from(await withKey.arrayBuffer()), png);
    assert.equal(withKey.headers.get('etag'), `"${avatar.sha256}"`);

    const signed = await fetch(`${b.baseUrl}${avatar.url}`);
    assert.equal(signed.status, 200, 'node A signed it, node B checks it: one service secret');
    assert.deepEqual(Buffer.from(await signed.arrayBuffer()), png);

    const thumb = await fetch(`${b.baseUrl}${avatar.url}&thumb=30x30`);
    assert.equal(thumb.status, 200, await thumb.clone().text());
    const info = await sharp(Buffer.from(await thumb.arrayBuffer())).metadata();
    assert.deepEqual([info.width, info.height], [30, 30]);

    // Removed through node B: node A no longer serves it either.
    const cleared = await fetch(`${b.baseUrl}/v1/profiles/${id}`, {
      method: 'PATCH',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ avatar: null }),
    });
    assert.equal(cleared.status, 200, await cleared.clone().text());
    const gone = await fetch(`${a.baseUrl}/v1/profiles/${id}/avatar`, { headers: auth });
    assert.equal(gone.status, 404);
  });
});

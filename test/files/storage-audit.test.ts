// The storage audit on SQLite and PostgreSQL with the local and the S3 driver: it keeps every file a
// record names (soft-deleted records' too), finds orphans past the grace period only, committed uploads
// left under tmp/, and files storage lacks; the repair removes and moves exactly those.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';
import { testDialects } from '../helpers/test-databases.ts';
import type { ResourceDefinition, StorageConfig } from '../../src/config/config-types.ts';
import { multipartPayload } from '../helpers/multipart-payload.ts';
import { s3StorageOf, startS3TestServer, type S3TestServer } from '../helpers/s3-test-server.ts';
import { auditStorage, repairStorage } from '../../src/files/storage-audit.ts';
import { referencedFiles } from '../../src/records/referenced-files.ts';

const RESOURCES: Record<string, ResourceDefinition> = {
  docs: {
    enableSoftDelete: true,
    fields: { title: { type: 'string', required: true }, attachment: { type: 'file' }, extra: { type: 'files' } },
    permissions: { editor: { read: true, create: true, update: true, delete: true } },
  },
};

for (const dialect of testDialects()) {
  for (const driver of ['local', 's3'] as const) {
    describe(`storage audit (${dialect}, ${driver})`, () => {
      let t: TestApp;
      let s3: S3TestServer | undefined;
      let editor: string;

      const create = async (title: string) => {
        const { payload, headers } = multipartPayload([
          { name: 'title', value: title },
          { name: 'attachment', file: Buffer.from(`${title} bytes`), filename: `${title}.txt`, type: 'text/plain' },
          { name: 'extra', file: Buffer.from(`${title} extra`), filename: 'e.txt', type: 'text/plain' },
        ]);
        const response = await t.request({ method: 'POST', url: '/v1/docs', payload, headers, auth: editor });
        assert.equal(response.statusCode, 201, response.body);
        return response.json().data as {
          id: string;
          attributes: { attachment: { id: string }; extra: { id: string }[] };
        };
      };
      const audit = async (graceMs: number) =>
        auditStorage(t.ctx.files.storage, await referencedFiles(t.ctx.store, t.ctx.registry.all()), { graceMs });
      const put = (key: string) =>
        t.ctx.files.storage.put(key, Readable.from([Buffer.from('left over')]), 'text/plain');

      before(async () => {
        let storage: StorageConfig | undefined;
        if (driver === 's3') {
          s3 = await startS3TestServer();
          storage = s3StorageOf(s3);
        }
        t = await startTestApp(dialect, { resources: RESOURCES, ...(storage ? { storage } : {}) });
        editor = await t.as('editor');
      });
      after(async () => {
        await t.close();
        await s3?.close();
      });

      it('keeps referenced files, finds orphans, unmoved uploads and missing files, and repairs', async () => {
        const live = await create('live');
        const soft = await create('soft');
        const gone = await create('gone');
        const deleted = await t.request({ method: 'DELETE', url: `/v1/docs/${soft.id}`, auth: editor });
        assert.equal(deleted.statusCode, 204, deleted.body);

        // A crash's leftovers: an upload never committed, a file and a thumbnail of no record.
        await put('tmp/00000000-0000-4000-8000-000000000001');
        await put('docs/no-such-record/attachment/00000000-0000-4000-8000-000000000002');
        await put('derived/docs/no-such-record/attachment/00000000-0000-4000-8000-000000000002/thumb-10x10');
        // Another application's object in the bucket: not a key the service makes.
        await put('elsewhere.txt');
        // A commit whose move did not happen: the live record's file back under tmp/.
        const liveKey = `docs/${live.id}/attachment/${live.attributes.attachment.id}`;
        await t.ctx.files.storage.move(liveKey, `tmp/${live.attributes.attachment.id}`);
        // A file the record names that storage lost.
        const lostKey = `docs/${gone.id}/extra/${gone.attributes.extra[0]?.id}`;
        await t.ctx.files.storage.delete(lostKey);

        // Within the grace period nothing is an orphan; the unmoved and missing files are reported anyway.
        const young = await audit(60 * 60 * 1000);
        assert.deepEqual(young.orphans, []);
        assert.deepEqual(young.unmoved, [{ key: `tmp/${live.attributes.attachment.id}`, target: liveKey }]);
        assert.deepEqual(young.missing, [
          { resource: 'docs', recordId: gone.id, field: 'extra', fileId: gone.attributes.extra[0]?.id },
        ]);

        const now = await audit(0);
        assert.deepEqual(now.orphans.map((object) => object.key).sort(), [
          'derived/docs/no-such-record/attachment/00000000-0000-4000-8000-000000000002/thumb-10x10',
          'docs/no-such-record/attachment/00000000-0000-4000-8000-000000000002',
          'tmp/00000000-0000-4000-8000-000000000001',
        ]);
        assert.equal(await repairStorage(t.ctx.files.storage, now), 4);

        const keys: string[] = [];
        for await (const object of t.ctx.files.storage.list('')) keys.push(object.key);
        const expected = [
          'elsewhere.txt',
          liveKey,
          `docs/${live.id}/extra/${live.attributes.extra[0]?.id}`,
          // The soft-deleted record keeps its files until it is purged.
          `docs/${soft.id}/attachment/${soft.attributes.attachment.id}`,
          `docs/${soft.id}/extra/${soft.attributes.extra[0]?.id}`,
          `docs/${gone.id}/attachment/${gone.attributes.attachment.id}`,
        ];
        assert.deepEqual(keys.sort(), expected.sort());
        const after = await audit(0);
        assert.deepEqual([after.orphans, after.unmoved, after.missing.length], [[], [], 1]);
      });
    });
  }
}

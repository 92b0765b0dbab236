// Uploads through a resource with before-hooks, on SQLite and PostgreSQL: the hook sees the metadata
// (never bytes), may change other values, and the upload is stored; a hook's refusal leaves no file.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { buildApp } from '../../src/server.ts';
import { createTestDatabase, testDialects, type TestDatabase } from '../helpers/test-databases.ts';
import { testConfig, TEST_ADMIN_TOKEN } from '../helpers/test-config.ts';
import { authorizationFor } from '../helpers/test-auth.ts';
import { multipartPayload } from '../helpers/multipart-payload.ts';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../src/app-context.ts';

const PDF = Buffer.from('%PDF-1.4\n%%EOF\n');

for (const dialect of testDialects()) {
  describe(`uploads with before-hooks (${dialect})`, () => {
    let database: TestDatabase;
    let app: FastifyInstance;
    let ctx: AppContext;
    let editor: string;
    const seen: unknown[] = [];

    before(async () => {
      database = await createTestDatabase(dialect);
      const config = testConfig(database.url, {
        resources: {
          docs: {
            fields: { title: { type: 'string', required: true }, scan: { type: 'file' } },
            permissions: { editor: { read: true, create: true, update: true, delete: true } },
          },
        },
      });
      const hooks = {
        docs: {
          beforeCreate(context: { values: Record<string, unknown> }) {
            seen.push(context.values.scan);
            if (context.values.title === 'refuse') throw new Error('refused by the hook');
            context.values.title = `${String(context.values.title)} (checked)`;
          },
        },
      };
      ({ app, ctx } = await buildApp({ config, hooks }));
      await app.ready();
      editor = await authorizationFor(app, ctx, 'editor', 'editor-user');
    });
    after(async () => {
      await app.close();
      await ctx.store.close().catch(() => {});
      await database.drop();
      void TEST_ADMIN_TOKEN;
    });

    it('stores the upload a hook let through, the hook having seen its metadata', async () => {
      const { payload, headers } = multipartPayload([
        { name: 'title', value: 'ok' },
        { name: 'scan', file: PDF, filename: 'scan.pdf' },
      ]);
      const response = await app.inject({
        method: 'POST',
        url: '/v1/docs',
        payload,
        headers: { ...headers, authorization: editor },
      });
      assert.equal(response.statusCode, 201, response.body);
      const record = response.json().data;
      assert.equal(record.attributes.title, 'ok (checked)');
      assert.equal((seen.at(-1) as { name: string }).name, 'scan.pdf');
      const download = await app.inject({ method: 'GET', url: record.attributes.scan.url });
      assert.deepEqual(download.rawPayload, PDF);
    });

    it('removes the upload a hook refused', async () => {
      const { payload, headers } = multipartPayload([
        { name: 'title', value: 'refuse' },
        { name: 'scan', file: PDF, filename: 'no.pdf' },
      ]);
      const response = await app.inject({
        method: 'POST',
        url: '/v1/docs',
        payload,
        headers: { ...headers, authorization: editor },
      });
      // The hook throws: the write fails (HOOK_FAILED), and its upload goes with it.
      assert.ok(response.statusCode >= 400, response.body);
      const pending: string[] = [];
      for await (const object of ctx.files.storage.list('tmp/')) pending.push(object.key);
      assert.deepEqual(pending, []);
    });
  });
}

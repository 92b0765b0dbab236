// A real `svc start`: GET /admin/resources names the config file the definitions came from, and after
// the file is changed and the process gets SIGHUP, shows the reloaded definitions.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { createTestDatabase, testDialects, type TestDatabase } from '../helpers/test-databases.ts';
import { eventually, SvcProcess } from '../helpers/svc-process.ts';

const ADMIN = 'reload-test-admin-token-0123456789';
const NOTES = { fields: { text: { type: 'text' } }, permissions: { editor: { read: true } } };

interface Listing {
  data: { id: string; attributes: { fields: Record<string, unknown> } }[];
  meta: { definitionsVersion: number; appliedFrom: string | null };
}

for (const dialect of testDialects()) {
  describe(`admin resources after SIGHUP (${dialect})`, { timeout: 120_000 }, () => {
    let database: TestDatabase;
    let file: string;
    let node: SvcProcess;
    const write = (resources: Record<string, unknown>) =>
      writeFileSync(
        file,
        stringify({
          database: { url: database.url },
          server: { host: '127.0.0.1', port: 0 },
          adminToken: ADMIN,
          dataDir: join(file, '..', 'data'),
          resources,
        }),
      );
    const listing = async (): Promise<Listing> => {
      const response = await fetch(`${node.baseUrl}/admin/resources`, {
        headers: { authorization: `Bearer ${ADMIN}` },
      });
      assert.equal(response.status, 200);
      return (await response.json()) as Listing;
    };

    before(async () => {
      database = await createTestDatabase(dialect);
      file = join(mkdtempSync(join(tmpdir(), 'svc-reload-')), 'svc.config.yaml');
      write({ notes: NOTES });
      node = await SvcProcess.start(file);
    });
    after(async () => {
      await node?.stop('SIGTERM');
      await database?.drop();
    });

    it('shows the file at start, and the reloaded definitions from it after SIGHUP', async () => {
      const first = await listing();
      assert.deepEqual(
        first.data.map((d) => d.id),
        ['notes'],
      );
      assert.equal(first.meta.appliedFrom, file);

      write({
        notes: { ...NOTES, fields: { ...NOTES.fields, title: { type: 'string', maxLength: 80 } } },
        tags: NOTES,
      });
      node.child.kill('SIGHUP');
      let reloaded: Listing | undefined;
      await eventually(
        async () => {
          reloaded = await listing();
          return reloaded.data.length === 2;
        },
        `the reloaded definitions:\n${node.output}`,
        20_000,
      );
      assert.deepEqual(
        reloaded!.data.map((d) => d.id),
        ['notes', 'tags'],
      );
      assert.deepEqual(reloaded!.data[0]!.attributes.fields.title, {
        type: 'string',
        id: 'notes.title',
        required: false,
        nullable: true,
        unique: false,
        sortable: false,
        maxLength: 80,
      });
      assert.equal(reloaded!.meta.appliedFrom, file);
      assert.ok(reloaded!.meta.definitionsVersion > first.meta.definitionsVersion);
    });
  });
}

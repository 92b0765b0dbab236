// POST /admin/reload: the config file read again and its resource definitions applied, here and on the
// other nodes of the database, as SIGHUP does; an invalid or destructive file changes nothing.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { stringify } from 'yaml';
import { buildApp, type BuiltApp } from '../../src/server.ts';
import { loadConfig } from '../../src/resources/config-loader.ts';
import { createTestDatabase, testDialects, type TestDatabase } from '../helpers/test-databases.ts';
import { writeConfigFile } from '../helpers/svc-process.ts';
import { TEST_ADMIN_TOKEN } from '../helpers/test-config.ts';
import { authorizationFor } from '../helpers/test-auth.ts';

const ADMIN = `Bearer ${TEST_ADMIN_TOKEN}`;
const NOTES = { fields: { text: { type: 'text' } }, permissions: { editor: { read: true, create: true } } };

for (const dialect of testDialects()) {
  describe(`POST /admin/reload (${dialect})`, () => {
    let database: TestDatabase;
    let file: string;
    let node: BuiltApp;
    let other: BuiltApp;
    const write = (resources: Record<string, unknown>) =>
      writeFileSync(file, stringify({ database: { url: database.url }, adminToken: TEST_ADMIN_TOKEN, resources }));
    const reload = (app: BuiltApp, auth = ADMIN) =>
      app.app.inject({ method: 'POST', url: '/admin/reload', headers: { authorization: auth } });
    const resourceNames = async (app: BuiltApp) =>
      (
        (await app.app.inject({ method: 'GET', url: '/admin/resources', headers: { authorization: ADMIN } })).json()
          .data as { id: string }[]
      ).map((d) => d.id);

    before(async () => {
      database = await createTestDatabase(dialect);
      file = writeConfigFile({});
      write({ notes: NOTES });
      node = await buildApp({ config: await loadConfig({ file }), configFile: file });
      other = await buildApp({ config: await loadConfig({ file }) });
      await Promise.all([node.app.ready(), other.app.ready()]);
    });
    after(async () => {
      await other.app.close();
      await node.app.close();
      await database.drop();
    });

    it('applies the file again here and on the other node', async () => {
      write({
        notes: NOTES,
        tasks: { fields: { title: { type: 'string' } }, permissions: { editor: { read: true } } },
      });
      const response = await reload(node);
      assert.equal(response.statusCode, 200, response.body);
      assert.equal(response.headers['content-type'], 'application/vnd.api+json');
      assert.deepEqual(response.json().meta, { changed: true, source: file, resources: ['notes', 'tasks'] });
      assert.deepEqual(await resourceNames(node), ['notes', 'tasks']);
      await other.ctx.signals.poll();
      assert.deepEqual(await resourceNames(other), ['notes', 'tasks']);
      assert.equal((await reload(node)).json().meta.changed, false, 'the same file again changes nothing');
    });

    it('keeps the running definitions when the file is invalid or would lose data', async () => {
      write({ notes: { fields: { text: { type: 'no-such-type' } } } });
      const invalid = await reload(node);
      assert.equal(invalid.statusCode, 400);
      assert.equal(invalid.json().errors[0].code, 'BAD_REQUEST');
      write({ notes: { fields: {}, permissions: { editor: { read: true } } } });
      const destructive = await reload(node);
      assert.equal(destructive.statusCode, 409);
      assert.match(destructive.json().errors[0].detail, /running definitions stay/);
      assert.deepEqual(await resourceNames(node), ['notes', 'tasks']);
    });

    it('needs the admin token, and a server started from a file', async () => {
      assert.equal((await reload(node, '')).statusCode, 401);
      const key = await authorizationFor(node.app, node.ctx, 'editor', 'reload-editor');
      assert.equal((await reload(node, key)).statusCode, 403);
      const fromObject = await reload(other);
      assert.equal(fromObject.statusCode, 409);
      assert.match(fromObject.json().errors[0].detail, /not started from a config file/);
    });
  });
}

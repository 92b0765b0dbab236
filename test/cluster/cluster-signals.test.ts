// Two apps on one database stand for two nodes: what one changes (keys, users, webhook subscriptions,
// resource definitions), the other learns from the signal table. Polls are driven by hand, so nothing
// here waits on timing; B's own poll timer still runs, so no test asserts what B has not read yet.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import pino from 'pino';
import { buildApp, type BuiltApp } from '../../src/server.ts';
import { ClusterSignals } from '../../src/cluster/cluster-signals.ts';
import { recordAppliedDefinitions } from '../../src/cluster/definitions-store.ts';
import { DEFINITIONS_TOPIC } from '../../src/cluster/definition-sync.ts';
import { DestructiveChangeError } from '../../src/store/destructive-change.ts';
import type { ResourceDefinition } from '../../src/config/config-types.ts';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';
import { testConfig } from '../helpers/test-config.ts';
import { testDialects } from '../helpers/test-databases.ts';

const NOTES: Record<string, ResourceDefinition> = {
  notes: {
    fields: { text: { type: 'string', required: true } },
    permissions: { editor: { read: true, create: true, update: true, delete: true } },
  },
};

for (const dialect of testDialects()) {
  describe(`cluster signals between two apps on one database (${dialect})`, () => {
    let a: TestApp;
    let b: BuiltApp;
    let editor: string;
    // B's warnings and errors, shown when an assertion about B fails (a failed signal read or reload logs why).
    const bLog: string[] = [];
    const bLogStream = new Writable({
      write(chunk: Buffer, _encoding, done) {
        bLog.push(chunk.toString('utf8'));
        done();
      },
    });

    before(async () => {
      a = await startTestApp(dialect, { resources: NOTES });
      b = await buildApp({
        // The data folder of A, as two processes on one database file share it: so they share the generated
        // service secret, which seals webhook signing secrets (docs/operations.md).
        config: { ...testConfig(a.database.url, { resources: NOTES }), dataDir: a.ctx.config.dataDir },
        logger: { level: 'warn', stream: bLogStream },
      });
      await b.app.ready();
      editor = await a.as('editor');
    });

    after(async () => {
      await b.app.close();
      await a.close();
    });

    const onB = (method: 'GET' | 'POST', url: string, payload?: object) =>
      b.app.inject({ method, url, headers: { authorization: editor }, ...(payload ? { payload } : {}) });

    it("drops a key disabled on one app from the other's cache when the signal is read", async () => {
      assert.equal((await onB('GET', '/v1/notes')).statusCode, 200);
      const keys = await a.request({ method: 'GET', url: '/admin/keys', auth: a.admin });
      const keyId = keys.json<{ data: Array<{ id: string }> }>().data[0]!.id;
      const patched = await a.request({
        method: 'PATCH',
        url: `/admin/keys/${keyId}`,
        auth: a.admin,
        payload: { enabled: false },
      });
      assert.equal(patched.statusCode, 200);
      // B cached the key a moment ago and would trust it for 5 s; the signal ends that now.
      await b.ctx.signals.poll();
      const refused = await onB('GET', '/v1/notes');
      assert.equal(refused.statusCode, 401);
      assert.equal(refused.json<{ errors: Array<{ code: string }> }>().errors[0]!.code, 'API_KEY_DISABLED');
      await a.request({ method: 'PATCH', url: `/admin/keys/${keyId}`, auth: a.admin, payload: { enabled: true } });
      await b.ctx.signals.poll();
      assert.equal((await onB('GET', '/v1/notes')).statusCode, 200);
    });

    it("reloads the other app's webhook subscriptions when one app changes them", async () => {
      const created = await a.request({
        method: 'POST',
        url: '/admin/webhooks',
        auth: a.admin,
        payload: { name: 'notes', url: 'http://127.0.0.1:9/hook', eventPattern: 'notes.*' },
      });
      assert.equal(created.statusCode, 201, created.body);
      await b.ctx.signals.poll();
      const note = await onB('POST', '/v1/notes', { text: 'queued by B' });
      assert.equal(note.statusCode, 201);
      const id = created.json<{ data: { id: string } }>().data.id;
      const deliveries = await a.request({ method: 'GET', url: `/admin/webhooks/${id}/deliveries`, auth: a.admin });
      // Nothing listens on port 9: the first attempt may already have failed and queued its retry.
      assert.ok(
        deliveries.json<{ meta: { total: number } }>().meta.total >= 1,
        'B queued a delivery for the new subscription',
      );
      assert.equal(
        (await a.request({ method: 'DELETE', url: `/admin/webhooks/${id}`, auth: a.admin })).statusCode,
        204,
      );
    });

    it('serves resource definitions applied by the other app', async () => {
      const extended = {
        notes: {
          ...NOTES.notes!,
          fields: { ...NOTES.notes!.fields, pinned: { type: 'boolean' as const, default: false } },
        },
        tags: {
          fields: { label: { type: 'string' as const } },
          permissions: { editor: { read: true as const, create: true as const } },
        },
      };
      assert.equal(await a.ctx.definitions.apply(testConfig(a.database.url, { resources: extended }).resources), true);
      assert.equal((await a.request({ method: 'GET', url: '/v1/tags', auth: editor })).statusCode, 200);
      // No "B does not serve it yet" check: B's own poll timer may read the signal first (it did once in CI).
      await b.ctx.signals.poll();
      assert.equal((await onB('GET', '/v1/tags')).statusCode, 200, bLog.join(''));
      const pinned = await onB('POST', '/v1/notes', { text: 'pinned', pinned: true });
      assert.equal(pinned.statusCode, 201, pinned.body);
      assert.equal(pinned.json<{ data: { attributes: { pinned: boolean } } }>().data.attributes.pinned, true);
      const schema = await b.app.inject({ method: 'GET', url: '/openapi.json' });
      assert.ok('/v1/tags' in schema.json<{ paths: object }>().paths);
      // The same definitions again change nothing and tell no one.
      assert.equal(await a.ctx.definitions.apply(testConfig(a.database.url, { resources: extended }).resources), false);
    });

    it('refuses a reload that would drop a column, and changes nothing', async () => {
      const before = a.ctx.registry.hash;
      await assert.rejects(
        a.ctx.definitions.apply(testConfig(a.database.url, { resources: NOTES }).resources),
        DestructiveChangeError,
      );
      assert.equal(a.ctx.registry.hash, before);
      assert.equal((await a.request({ method: 'GET', url: '/v1/tags', auth: editor })).statusCode, 200);
    });

    it('keeps its definitions when the recorded ones are not valid here', async () => {
      const before = b.ctx.registry.hash;
      const invalid = { notes: { fields: { text: { type: 'no-such-type' } } } } as unknown as Record<
        string,
        ResourceDefinition
      >;
      await recordAppliedDefinitions(a.ctx.store.db, invalid);
      await a.ctx.signals.publish(DEFINITIONS_TOPIC, {});
      await b.ctx.signals.poll();
      assert.equal(b.ctx.registry.hash, before);
      assert.equal((await onB('GET', '/v1/tags')).statusCode, 200);
    });

    it('deletes signals older than the retention', async () => {
      const signals = new ClusterSignals({
        db: a.ctx.store.db,
        dialect: a.ctx.store.dialect,
        log: pino({ level: 'silent' }),
        pollIntervalMs: 60_000,
        retentionMs: 1,
      });
      await signals.start();
      await new Promise((resolve) => setTimeout(resolve, 5));
      await signals.poll();
      const left = await a.ctx.store.db.selectFrom('svc_signals').select('seq').execute();
      assert.equal(left.length, 0);
      await signals.close();
    });
  });
}

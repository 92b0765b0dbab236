// /healthz answers while the process runs; /readyz only when the database answers, every table is in
// place and the app is not closing, with each check reported.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/server.ts';
import type { AppContext } from '../../src/app-context.ts';
import { createStore } from '../../src/store/create-store.ts';
import { ReadinessProbe, serviceTables } from '../../src/http/routes/readiness-probe.ts';
import { createTestDatabase, testDialects, type TestDatabase } from '../helpers/test-databases.ts';
import { testConfig } from '../helpers/test-config.ts';

for (const dialect of testDialects()) {
  describe(`health and readiness (${dialect})`, () => {
    let database: TestDatabase;
    let app: FastifyInstance;
    let ctx: AppContext;
    before(async () => {
      database = await createTestDatabase(dialect);
      ({ app, ctx } = await buildApp({ config: testConfig(database.url), startWorkers: false }));
      await app.ready();
    });
    after(async () => {
      await app.close();
      await database.drop();
    });

    it('answers /healthz and /readyz without a key, reporting each readiness check', async () => {
      const health = await app.inject({ method: 'GET', url: '/healthz' });
      assert.equal(health.statusCode, 200);
      assert.deepEqual(health.json(), { status: 'ok' });
      const ready = await app.inject({ method: 'GET', url: '/readyz', headers: { 'x-request-id': 'probe-1' } });
      assert.equal(ready.statusCode, 200);
      assert.deepEqual(ready.json(), { status: 'ready', database: 'ok', migrations: 'applied' });
      assert.equal(ready.headers['x-request-id'], 'probe-1');
    });

    it('reports closing once shutdown has begun', async () => {
      const probe = new ReadinessProbe(ctx.store, () => serviceTables([]));
      assert.equal((await probe.check()).readiness.status, 'ready');
      probe.markClosing();
      assert.deepEqual((await probe.check()).readiness, {
        status: 'closing',
        database: 'unknown',
        migrations: 'unknown',
      });
    });

    // Last: it leaves the database without a table.
    it('answers 503 SERVICE_UNAVAILABLE naming a missing table', async () => {
      await ctx.store.db.schema.dropTable('comments').execute();
      const response = await app.inject({ method: 'GET', url: '/readyz' });
      assert.equal(response.statusCode, 503);
      assert.match(String(response.headers['content-type']), /^application\/vnd\.api\+json/);
      const body = response.json();
      assert.equal(body.errors[0].code, 'SERVICE_UNAVAILABLE');
      assert.match(body.errors[0].detail, /missing tables comments/);
      assert.deepEqual(body.meta, {
        status: 'unavailable',
        database: 'ok',
        migrations: 'missing',
        missingTables: ['comments'],
      });
      assert.equal(
        (await app.inject({ method: 'GET', url: '/healthz' })).statusCode,
        200,
        'the process is still alive',
      );
    });
  });
}

describe('readiness of an unreachable database', () => {
  it('reports the database unreachable and the migrations unknown', async () => {
    // Nothing listens on port 1: the connection is refused at once.
    const store = createStore('postgres://svc@127.0.0.1:1/none');
    try {
      const { readiness, cause } = await new ReadinessProbe(store, () => serviceTables(['posts'])).check();
      assert.deepEqual(readiness, { status: 'unavailable', database: 'unreachable', migrations: 'unknown' });
      assert.ok(cause instanceof Error);
    } finally {
      await store.close();
    }
  });
});

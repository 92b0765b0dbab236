// Idempotency-Key on POST /v1/:resource (docs/records.md, "Idempotent creates"), on every dialect: a
// retry replays the first answer without a second row or event, another request under the key is 422,
// a retry while the first runs is 409, keys are per caller, kept across restarts, and pruned once expired.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import { buildApp } from '../../src/server.ts';
import { EVENTS_TABLE } from '../../src/events/outbox.ts';
import { IDEMPOTENCY_TABLE } from '../../src/idempotency/idempotency-table.ts';
import { RetentionJob } from '../../src/retention/retention-job.ts';
import { RETENTION_DEFAULTS } from '../../src/config/config-schema.ts';
import { IDEMPOTENCY_DEFAULTS } from '../../src/config/idempotency-settings.ts';
import type { Db } from '../../src/store/store-dialect.ts';
import type { RecordService } from '../../src/records/record-service.ts';
import { createTestDatabase, testDialects } from '../helpers/test-databases.ts';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';
import { testConfig, TEST_ADMIN_TOKEN } from '../helpers/test-config.ts';
import { authorizationFor } from '../helpers/test-auth.ts';
import { parseExposition, sampleValue } from '../helpers/prometheus-text.ts';

const DAY = 24 * 60 * 60 * 1000;

async function count(db: Db, table: string, where?: [string, string]): Promise<number> {
  let query = db.selectFrom(table).select(sql<number>`count(*)`.as('n'));
  if (where) query = query.where(where[0], '=', where[1]);
  const row = await query.executeTakeFirst();
  return Number(row?.n ?? 0);
}

/** Makes `records.create` wait for `open()` (after the key is claimed, before anything is written). */
function holdCreates(records: RecordService): { open(): void; restore(): void } {
  const original = records.create.bind(records);
  let open!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  records.create = async (...args: Parameters<RecordService['create']>) => {
    await gate;
    return original(...args);
  };
  return { open, restore: () => (records.create = original) };
}

async function eventually(condition: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await sleep(10);
  }
}

for (const dialect of testDialects()) {
  describe(`Idempotency-Key on POST /v1/:resource (${dialect})`, () => {
    let t: TestApp;
    let editor: string;

    before(async () => {
      t = await startTestApp(dialect);
      editor = await t.as('editor');
    });
    after(() => t?.close());

    const create = (key: string | undefined, payload: unknown, auth = editor, url = '/v1/categories') =>
      t.request({ method: 'POST', url, auth, payload: payload as Record<string, unknown>, headers: key === undefined ? {} : { 'idempotency-key': key } });
    const categories = (name: string) => count(t.ctx.store.db, 'categories', ['name', name]);
    const events = () => count(t.ctx.store.db, EVENTS_TABLE, ['resource', 'categories']);

    it('replays the first answer to a retry, without a second row or event', async () => {
      const key = randomUUID();
      const eventsBefore = await events();
      const first = await create(key, { name: 'Replayed', description: 'once' });
      assert.equal(first.statusCode, 201, first.body);
      assert.equal(first.headers['idempotency-replayed'], undefined);
      assert.equal(first.headers['content-type'], 'application/vnd.api+json');
      const id = first.json().data.id;
      assert.equal(first.headers.location, `/v1/categories/${id}`);

      // The same body with its members in another order is the same request.
      const retry = await create(key, { description: 'once', name: 'Replayed' });
      assert.equal(retry.statusCode, 201, retry.body);
      assert.equal(retry.headers['idempotency-replayed'], 'true');
      assert.equal(retry.body, first.body);
      assert.equal(retry.headers.location, first.headers.location);
      assert.equal(retry.headers['content-type'], 'application/vnd.api+json');
      assert.equal(await categories('Replayed'), 1);
      assert.equal(await events(), eventsBefore + 1, 'one created event');
    });

    it('answers 422 IDEMPOTENCY_KEY_REUSED for another body or path under the same key', async () => {
      const key = randomUUID();
      assert.equal((await create(key, { name: 'First body' })).statusCode, 201);
      const other = await create(key, { name: 'Second body' });
      assert.equal(other.statusCode, 422, other.body);
      const [error] = other.json().errors;
      assert.equal(error.code, 'IDEMPOTENCY_KEY_REUSED');
      assert.deepEqual(error.source, { parameter: 'Idempotency-Key' });
      assert.equal(await categories('Second body'), 0);
      const otherPath = await create(key, { name: 'First body' }, editor, '/v1/posts');
      assert.equal(otherPath.statusCode, 422, otherPath.body);
    });

    it('keeps keys per caller: another caller\'s same key is its own', async () => {
      const key = randomUUID();
      const other = await t.as('editor', 'second-editor');
      const mine = await create(key, { name: 'Mine' });
      const theirs = await create(key, { name: 'Theirs' }, other);
      assert.equal(mine.statusCode, 201, mine.body);
      assert.equal(theirs.statusCode, 201, theirs.body);
      assert.equal(theirs.headers['idempotency-replayed'], undefined);
      assert.equal(await categories('Theirs'), 1);
    });

    it('answers 409 IDEMPOTENCY_KEY_IN_USE to a retry while the first request runs, then replays its answer', async () => {
      const key = randomUUID();
      const hold = holdCreates(t.ctx.records);
      try {
        const first = create(key, { name: 'Slow' });
        await eventually(async () => (await count(t.ctx.store.db, IDEMPOTENCY_TABLE, ['idempotency_key', key])) === 1, 'the first request holds the key');
        const retry = await create(key, { name: 'Slow' });
        assert.equal(retry.statusCode, 409, retry.body);
        assert.equal(retry.json().errors[0].code, 'IDEMPOTENCY_KEY_IN_USE');
        hold.open();
        const done = await first;
        assert.equal(done.statusCode, 201, done.body);
        const later = await create(key, { name: 'Slow' });
        assert.equal(later.statusCode, 201);
        assert.equal(later.body, done.body);
        assert.equal(await categories('Slow'), 1);
      } finally {
        hold.open();
        hold.restore();
      }
    });

    it('writes once under a burst of concurrent retries', async () => {
      const key = randomUUID();
      const answers = await Promise.all(Array.from({ length: 6 }, () => create(key, { name: 'Burst' })));
      const statuses = answers.map((answer) => answer.statusCode);
      assert.ok(statuses.every((status) => status === 201 || status === 409), statuses.join(','));
      const created = answers.filter((answer) => answer.statusCode === 201);
      assert.ok(created.length >= 1);
      assert.ok(created.every((answer) => answer.body === created[0]!.body));
      assert.equal(await categories('Burst'), 1);
    });

    it('gives the key back when the request fails, so a retry runs again', async () => {
      const key = randomUUID();
      const refused = await create(key, { name: 'x'.repeat(500) });
      assert.equal(refused.statusCode, 400, refused.body);
      const fixed = await create(key, { name: 'Fixed' });
      assert.equal(fixed.statusCode, 201, fixed.body);
      assert.equal(fixed.headers['idempotency-replayed'], undefined);
    });

    it('runs again when the first request was abandoned past its lease, and the late first request writes nothing', async () => {
      const key = randomUUID();
      const hold = holdCreates(t.ctx.records);
      try {
        const first = create(key, { name: 'Abandoned' });
        await eventually(async () => (await count(t.ctx.store.db, IDEMPOTENCY_TABLE, ['idempotency_key', key])) === 1, 'the first request holds the key');
        // As if its lease ran out (a crash, or a request slower than idempotency.leaseMs).
        await t.ctx.store.db.updateTable(IDEMPOTENCY_TABLE).set({ lease_until: new Date(Date.now() - 1000).toISOString() }).where('idempotency_key', '=', key).execute();
        hold.restore();
        const retry = await create(key, { name: 'Abandoned' });
        assert.equal(retry.statusCode, 201, retry.body);
        hold.open();
        const late = await first;
        assert.equal(late.statusCode, 409, late.body);
        assert.equal(await categories('Abandoned'), 1, 'the late request rolled back');
        const again = await create(key, { name: 'Abandoned' });
        assert.equal(again.body, retry.body);
      } finally {
        hold.open();
        hold.restore();
      }
    });

    it('does not take over a key whose request commits its answer while the takeover waits', async () => {
      const key = randomUUID();
      const { idempotency } = t.ctx;
      const complete = idempotency.complete.bind(idempotency);
      let open!: () => void;
      const gate = new Promise<void>((resolve) => (open = resolve));
      let stored!: () => void;
      const answerStored = new Promise<void>((resolve) => (stored = resolve));
      // The answer is written in the create's transaction, which then waits, uncommitted.
      idempotency.complete = async (...args: Parameters<typeof complete>) => {
        await complete(...args);
        stored();
        await gate;
      };
      try {
        const first = create(key, { name: 'Committing' });
        await answerStored;
        // Another node, its clock past the lease, sees the committed row still 'running' and tries to take it.
        const rows = dialect === 'postgres' ? await t.ctx.store.db.selectFrom(IDEMPOTENCY_TABLE).select(['caller', 'fingerprint']).where('idempotency_key', '=', key).execute() : [];
        const use = rows[0] ? { caller: String(rows[0].caller), key, fingerprint: String(rows[0].fingerprint) } : undefined;
        const claiming = use && idempotency.claim(use, Date.now() + 2 * IDEMPOTENCY_DEFAULTS.leaseMs);
        await sleep(200);
        open();
        const done = await first;
        assert.equal(done.statusCode, 201, done.body);
        if (claiming) assert.equal((await claiming).kind, 'replay', 'the answer committed while the takeover waited is kept');
        assert.equal((await create(key, { name: 'Committing' })).body, done.body);
        assert.equal(await categories('Committing'), 1);
      } finally {
        open();
        idempotency.complete = complete;
      }
    });

    it('runs again once the key expired, and retention prunes expired keys and counts them', async () => {
      const key = randomUUID();
      const first = await create(key, { name: 'Expiring' });
      assert.equal(first.statusCode, 201);
      const old = new Date(Date.now() - 2 * DAY).toISOString();
      await t.ctx.store.db.updateTable(IDEMPOTENCY_TABLE).set({ created_at: old }).where('idempotency_key', '=', key).execute();
      const after = await create(key, { name: 'Expiring again' });
      assert.equal(after.statusCode, 201, after.body);
      assert.equal(after.headers['idempotency-replayed'], undefined);

      const expiredKey = randomUUID();
      assert.equal((await create(expiredKey, { name: 'Pruned' })).statusCode, 201);
      const kept = randomUUID();
      assert.equal((await create(kept, { name: 'Kept' })).statusCode, 201);
      // A row made two days ago: its id is as old as its created_at.
      await t.ctx.store.db
        .updateTable(IDEMPOTENCY_TABLE)
        .set({ created_at: old, id: '00000000-0000-7000-8000-000000000001' })
        .where('idempotency_key', '=', expiredKey)
        .execute();
      const job = new RetentionJob({ store: t.ctx.store, settings: RETENTION_DEFAULTS, replayWindow: 10_000, resources: () => [], log: t.ctx.log, idempotencyTtlMs: IDEMPOTENCY_DEFAULTS.ttlMs });
      const pass = await job.run();
      await job.stop();
      assert.equal(pass.idempotencyKeys, 1);
      assert.equal(await count(t.ctx.store.db, IDEMPOTENCY_TABLE, ['idempotency_key', expiredKey]), 0);
      assert.equal(await count(t.ctx.store.db, IDEMPOTENCY_TABLE, ['idempotency_key', kept]), 1);
      const metrics = await t.request({ method: 'GET', url: '/metrics', auth: `Bearer ${TEST_ADMIN_TOKEN}` });
      assert.equal(sampleValue(parseExposition(metrics.body), 'svc_retention_pruned_rows_total', { table: IDEMPOTENCY_TABLE }), 1);
    });

    it('refuses a malformed Idempotency-Key with 400 naming the header, and accepts 255 visible characters', async () => {
      for (const bad of ['', 'has space', 'é-accent', 'x'.repeat(256), 'tab\there']) {
        const response = await create(bad, { name: `Bad ${bad.length}` });
        assert.equal(response.statusCode, 400, `${JSON.stringify(bad)}: ${response.body}`);
        const [error] = response.json().errors;
        assert.equal(error.code, 'INVALID_IDEMPOTENCY_KEY');
        assert.deepEqual(error.source, { parameter: 'Idempotency-Key' });
      }
      const longest = await create('~'.repeat(255), { name: 'Longest key' });
      assert.equal(longest.statusCode, 201, longest.body);
    });

    it('leaves a POST without the header as it was: every request writes', async () => {
      const keysBefore = await count(t.ctx.store.db, IDEMPOTENCY_TABLE);
      assert.equal((await create(undefined, { name: 'No key' })).statusCode, 201);
      assert.equal((await create(undefined, { name: 'No key again' })).statusCode, 201);
      assert.equal(await count(t.ctx.store.db, IDEMPOTENCY_TABLE), keysBefore, 'nothing kept');
    });
  });

  describe(`Idempotency-Keys across a restart (${dialect})`, () => {
    it('a new app on the same database replays the answer the old one gave', async () => {
      const database = await createTestDatabase(dialect);
      const config = testConfig(database.url);
      try {
        const firstApp = await buildApp({ config });
        await firstApp.app.ready();
        const auth = await authorizationFor(firstApp.app, firstApp.ctx, 'editor', 'restart-editor');
        const key = randomUUID();
        const request = { method: 'POST' as const, url: '/v1/categories', payload: { name: 'Before restart' }, headers: { authorization: auth, 'idempotency-key': key } };
        const first = await firstApp.app.inject(request);
        assert.equal(first.statusCode, 201, first.body);
        await firstApp.app.close();

        const secondApp = await buildApp({ config });
        await secondApp.app.ready();
        try {
          const retry = await secondApp.app.inject(request);
          assert.equal(retry.statusCode, 201, retry.body);
          assert.equal(retry.headers['idempotency-replayed'], 'true');
          assert.equal(retry.body, first.body);
          assert.equal(await count(secondApp.ctx.store.db, 'categories'), 1);
        } finally {
          await secondApp.app.close();
        }
      } finally {
        await database.drop();
      }
    });
  });
}

// Idempotency-Key on POST /v1/:resource (docs/records.md, "Idempotent creates"), on every dialect: a
// retry replays the first answer without a second row or event, another request under the key is 422,
// a retry while the first runs waits for it (409 past the claim wait), a claim dies with its transaction
// (on another PostgreSQL node too), keys are per caller, kept across restarts, and pruned once expired.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import { buildApp } from '../../src/server.ts';
import { EVENTS_TABLE } from '../../src/events/outbox.ts';
import { IDEMPOTENCY_TABLE } from '../../src/idempotency/idempotency-table.ts';
import { CLAIM_WAIT_MS, type IdempotencyStore } from '../../src/idempotency/idempotency-store.ts';
import { RetentionJob } from '../../src/retention/retention-job.ts';
import { RETENTION_DEFAULTS } from '../../src/config/config-schema.ts';
import { IDEMPOTENCY_DEFAULTS } from '../../src/config/idempotency-settings.ts';
import type { Db } from '../../src/store/store-dialect.ts';
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

/**
 * Makes a create wait inside its transaction, after its key is claimed and its answer written but
 * before it commits, until `open()`; `reached` resolves once one is waiting there.
 */
function holdInWrite(idempotency: IdempotencyStore): { reached: Promise<void>; open(): void; restore(): void } {
  const complete = idempotency.complete.bind(idempotency);
  let open!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  let reach!: () => void;
  const reached = new Promise<void>((resolve) => (reach = resolve));
  idempotency.complete = async (...args: Parameters<typeof complete>) => {
    await complete(...args);
    reach();
    await gate;
  };
  return { reached, open, restore: () => (idempotency.complete = complete) };
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
      t.request({
        method: 'POST',
        url,
        auth,
        payload: payload as Record<string, unknown>,
        headers: key === undefined ? {} : { 'idempotency-key': key },
      });
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

    it("keeps keys per caller: another caller's same key is its own", async () => {
      const key = randomUUID();
      const other = await t.as('editor', 'second-editor');
      const mine = await create(key, { name: 'Mine' });
      const theirs = await create(key, { name: 'Theirs' }, other);
      assert.equal(mine.statusCode, 201, mine.body);
      assert.equal(theirs.statusCode, 201, theirs.body);
      assert.equal(theirs.headers['idempotency-replayed'], undefined);
      assert.equal(await categories('Theirs'), 1);
    });

    it('makes a retry wait while the first create runs, then replays its answer', async () => {
      const key = randomUUID();
      const held = holdInWrite(t.ctx.idempotency);
      try {
        const first = create(key, { name: 'Slow' });
        await held.reached;
        const retry = create(key, { name: 'Slow' });
        held.open();
        const [done, again] = await Promise.all([first, retry]);
        assert.equal(done.statusCode, 201, done.body);
        assert.equal(again.statusCode, 201, again.body);
        assert.equal(again.headers['idempotency-replayed'], 'true');
        assert.equal(again.body, done.body);
        assert.equal(await categories('Slow'), 1);
      } finally {
        held.open();
        held.restore();
      }
    });

    it(`answers 409 IDEMPOTENCY_KEY_IN_USE when the first create still runs after ${CLAIM_WAIT_MS} ms, then replays its answer`, async () => {
      const key = randomUUID();
      const held = holdInWrite(t.ctx.idempotency);
      try {
        const first = create(key, { name: 'Slower' });
        await held.reached;
        const retry = await create(key, { name: 'Slower' });
        assert.equal(retry.statusCode, 409, retry.body);
        assert.equal(retry.json().errors[0].code, 'IDEMPOTENCY_KEY_IN_USE');
        assert.deepEqual(retry.json().errors[0].source, { parameter: 'Idempotency-Key' });
        held.open();
        const done = await first;
        assert.equal(done.statusCode, 201, done.body);
        const later = await create(key, { name: 'Slower' });
        assert.equal(later.statusCode, 201);
        assert.equal(later.body, done.body);
        assert.equal(await categories('Slower'), 1);
      } finally {
        held.open();
        held.restore();
      }
    });

    it('writes once under a burst of concurrent retries, each waiting for the first and replaying its answer', async () => {
      const key = randomUUID();
      const answers = await Promise.all(Array.from({ length: 6 }, () => create(key, { name: 'Burst' })));
      const statuses = answers.map((answer) => answer.statusCode);
      assert.ok(
        statuses.every((status) => status === 201),
        statuses.join(','),
      );
      assert.equal(answers.filter((answer) => answer.headers['idempotency-replayed'] === 'true').length, 5);
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

    it('leaves no claim behind a create that fails after claiming its key, so a retry runs at once', async () => {
      const key = randomUUID();
      const { idempotency } = t.ctx;
      const complete = idempotency.complete.bind(idempotency);
      idempotency.complete = async () => {
        throw new Error('the node failed inside the write');
      };
      try {
        const failed = await create(key, { name: 'Failed once' });
        assert.equal(failed.statusCode, 500, failed.body);
      } finally {
        idempotency.complete = complete;
      }
      assert.equal(
        await count(t.ctx.store.db, IDEMPOTENCY_TABLE, ['idempotency_key', key]),
        0,
        'the claim rolled back with the write',
      );
      const retry = await create(key, { name: 'Failed once' });
      assert.equal(retry.statusCode, 201, retry.body);
      assert.equal(retry.headers['idempotency-replayed'], undefined);
      assert.equal(await categories('Failed once'), 1);
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
        const rows =
          dialect === 'postgres'
            ? await t.ctx.store.db
                .selectFrom(IDEMPOTENCY_TABLE)
                .select(['caller', 'fingerprint'])
                .where('idempotency_key', '=', key)
                .execute()
            : [];
        const use = rows[0]
          ? { caller: String(rows[0].caller), key, fingerprint: String(rows[0].fingerprint) }
          : undefined;
        const claiming = use && idempotency.claim(use, Date.now() + 2 * IDEMPOTENCY_DEFAULTS.leaseMs);
        await sleep(200);
        open();
        const done = await first;
        assert.equal(done.statusCode, 201, done.body);
        if (claiming)
          assert.equal((await claiming).kind, 'replay', 'the answer committed while the takeover waited is kept');
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
      await t.ctx.store.db
        .updateTable(IDEMPOTENCY_TABLE)
        .set({ created_at: old })
        .where('idempotency_key', '=', key)
        .execute();
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
      const job = new RetentionJob({
        store: t.ctx.store,
        settings: RETENTION_DEFAULTS,
        replayWindow: 10_000,
        resources: () => [],
        log: t.ctx.log,
        idempotencyTtlMs: IDEMPOTENCY_DEFAULTS.ttlMs,
      });
      const pass = await job.run();
      await job.stop();
      assert.equal(pass.idempotencyKeys, 1);
      assert.equal(await count(t.ctx.store.db, IDEMPOTENCY_TABLE, ['idempotency_key', expiredKey]), 0);
      assert.equal(await count(t.ctx.store.db, IDEMPOTENCY_TABLE, ['idempotency_key', kept]), 1);
      const metrics = await t.request({ method: 'GET', url: '/metrics', auth: `Bearer ${TEST_ADMIN_TOKEN}` });
      assert.equal(
        sampleValue(parseExposition(metrics.body), 'svc_retention_pruned_rows_total', { table: IDEMPOTENCY_TABLE }),
        1,
      );
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
        const request = {
          method: 'POST' as const,
          url: '/v1/categories',
          payload: { name: 'Before restart' },
          headers: { authorization: auth, 'idempotency-key': key },
        };
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

const PG_SKIP = process.env.TEST_DATABASE_URL ? false : 'TEST_DATABASE_URL is not set';
describe('Idempotency-Key claims across two nodes on one PostgreSQL database', { skip: PG_SKIP }, () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let a: Awaited<ReturnType<typeof buildApp>>;
  let b: Awaited<ReturnType<typeof buildApp>>;
  let auth: string;

  before(async () => {
    database = await createTestDatabase('postgres');
    const config = testConfig(database.url);
    a = await buildApp({ config });
    b = await buildApp({ config });
    await Promise.all([a.app.ready(), b.app.ready()]);
    auth = await authorizationFor(a.app, a.ctx, 'editor', 'two-node-editor');
  });
  after(async () => {
    await a?.app.close();
    await b?.app.close();
    await database?.drop();
  });

  /** The three writes that claim their key in their own transaction: a create, an upsert, an atomic batch. */
  const WRITES = {
    create: (node: typeof a, key: string, name: string) =>
      node.app.inject({
        method: 'POST',
        url: '/v1/categories',
        payload: { name },
        headers: { authorization: auth, 'idempotency-key': key },
      }),
    upsert: (node: typeof a, key: string, name: string) =>
      node.app.inject({
        method: 'POST',
        url: '/v1/categories?_upsert=name',
        payload: { name, description: 'upserted' },
        headers: { authorization: auth, 'idempotency-key': key },
      }),
    'atomic batch': (node: typeof a, key: string, name: string) =>
      node.app.inject({
        method: 'POST',
        url: '/v1/operations',
        payload: JSON.stringify({
          'atomic:operations': [
            { op: 'add', data: { type: 'categories', attributes: { name } } },
            { op: 'add', data: { type: 'categories', attributes: { name: `${name} (second)` } } },
          ],
        }),
        headers: {
          authorization: auth,
          'idempotency-key': key,
          'content-type': 'application/vnd.api+json; ext="https://jsonapi.org/ext/atomic"',
        },
      }),
  };
  const categories = (name: string) => count(a.ctx.store.db, 'categories', ['name', name]);

  /** Holds node A's create inside its transaction; `pid` is the PostgreSQL backend that runs it. */
  function holdOnA() {
    const { idempotency } = a.ctx;
    const complete = idempotency.complete.bind(idempotency);
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    let reach!: (pid: number) => void;
    const pid = new Promise<number>((resolve) => (reach = resolve));
    idempotency.complete = async (...args: Parameters<typeof complete>) => {
      await complete(...args);
      const { rows } = await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(args[0]);
      reach(Number(rows[0]!.pid));
      await gate;
    };
    return { pid, open, restore: () => (idempotency.complete = complete) };
  }

  for (const [kind, create] of Object.entries(WRITES)) {
    // A batch answers 200 with its results; a create (and an upsert that created) 201.
    const ok = kind === 'atomic batch' ? 200 : 201;
    it(`${kind}: a retry on node B waits on node A's uncommitted claim and replays the answer once it commits`, async () => {
      const key = randomUUID();
      const held = holdOnA();
      try {
        const first = create(a, key, `Committed on A by ${kind}`);
        await held.pid;
        const retry = create(b, key, `Committed on A by ${kind}`);
        held.open();
        const [done, again] = await Promise.all([first, retry]);
        assert.equal(done.statusCode, ok, done.body);
        assert.equal(again.statusCode, ok, again.body);
        assert.equal(again.headers['idempotency-replayed'], 'true');
        assert.equal(again.body, done.body);
        assert.equal(await categories(`Committed on A by ${kind}`), 1);
      } finally {
        held.open();
        held.restore();
      }
    });

    it(`${kind}: a retry on node B runs at once when node A's connection drops mid-create (its transaction rolls back)`, async () => {
      const key = randomUUID();
      const held = holdOnA();
      try {
        const first = create(a, key, `A died in ${kind}`);
        const pid = await held.pid;
        const retry = create(b, key, `A died in ${kind}`);
        // As a node killed mid-request: its connection ends and PostgreSQL rolls its transaction back.
        await sql`select pg_terminate_backend(${pid})`.execute(b.ctx.store.db);
        const again = await retry;
        assert.equal(again.statusCode, ok, again.body);
        assert.equal(again.headers['idempotency-replayed'], undefined, 'the retry ran: nothing had committed');
        held.open();
        const lost = await first;
        assert.notEqual(lost.statusCode, ok, 'the first create did not commit');
        assert.equal(await categories(`A died in ${kind}`), 1);
        const later = await create(a, key, `A died in ${kind}`);
        assert.equal(later.headers['idempotency-replayed'], 'true');
        assert.equal(later.body, again.body);
      } finally {
        held.open();
        held.restore();
      }
    });

    it(`${kind}: a retry on node B answers 409 IDEMPOTENCY_KEY_IN_USE while node A's create still runs after ${CLAIM_WAIT_MS} ms`, async () => {
      const key = randomUUID();
      const held = holdOnA();
      try {
        const first = create(a, key, `Still on A in ${kind}`);
        await held.pid;
        const retry = await create(b, key, `Still on A in ${kind}`);
        assert.equal(retry.statusCode, 409, retry.body);
        assert.equal(retry.json().errors[0].code, 'IDEMPOTENCY_KEY_IN_USE');
        held.open();
        assert.equal((await first).statusCode, ok);
        const later = await create(b, key, `Still on A in ${kind}`);
        assert.equal(later.headers['idempotency-replayed'], 'true');
        assert.equal(await categories(`Still on A in ${kind}`), 1);
      } finally {
        held.open();
        held.restore();
      }
    });
  }
});

// PostgreSQL goes away under load and comes back (a proxy in front of the real server cuts every
// connection and refuses new ones, as a restart does): while it is away svc answers 503
// SERVICE_UNAVAILABLE as JSON:API (never a 500, never a hang), /readyz says so, and when it is back svc
// serves again without a restart. Every create that was answered 201 is there afterwards, with its event.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/server.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/test-databases.ts';
import { testConfig } from '../helpers/test-config.ts';
import { authorizationFor } from '../helpers/test-auth.ts';
import { TcpProxy } from '../helpers/tcp-proxy.ts';
import { eventually } from '../helpers/svc-process.ts';

const SKIP = process.env.TEST_DATABASE_URL ? false : 'TEST_DATABASE_URL is not set';
if (SKIP) process.stdout.write(`# SKIP PostgreSQL outage: ${SKIP}\n`);

const WORKERS = 4;
const REQUEST_TIMEOUT_MS = 15_000;

interface Outcome {
  phase: 'up' | 'down' | 'back';
  status: number;
  code?: string;
  contentType: string;
  id?: string;
}

describe('PostgreSQL restarted under load', { skip: SKIP, timeout: 120_000 }, () => {
  let database: TestDatabase;
  let proxy: TcpProxy;
  let app: FastifyInstance;
  let base: string;
  let auth: string;

  before(async () => {
    database = await createTestDatabase('postgres');
    proxy = await TcpProxy.start(Number(new URL(database.url).port || 5432));
    const config = testConfig(proxy.through(database.url), {
      resources: {
        posts: {
          fields: { title: { type: 'string', required: true } },
          permissions: { editor: { read: true, create: true } },
        },
      },
    });
    const built = await buildApp({ config });
    app = built.app;
    await app.listen({ port: 0, host: '127.0.0.1' });
    const address = app.server.address();
    base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
    auth = await authorizationFor(app, built.ctx, 'editor', 'outage-editor');
  });

  after(async () => {
    await app?.close();
    await proxy?.close();
    await database?.drop();
  });

  it('answers 503 while the database is away and serves again when it is back', async () => {
    let phase: Outcome['phase'] = 'up';
    const outcomes: Outcome[] = [];
    let stop = false;
    const request = async (n: number): Promise<void> => {
      const create = n % 2 === 0;
      const at = phase;
      const response = await fetch(`${base}/v1/posts${create ? '' : '?_limit=5'}`, {
        method: create ? 'POST' : 'GET',
        headers: { authorization: auth, ...(create ? { 'content-type': 'application/json' } : {}) },
        ...(create ? { body: JSON.stringify({ title: `post ${n}` }) } : {}),
        signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      });
      const body = (await response.json()) as { data?: { id: string }; errors?: Array<{ code: string }> };
      outcomes.push({
        phase: at === phase ? at : 'down',
        status: response.status,
        contentType: response.headers.get('content-type') ?? '',
        ...(body.errors?.[0] ? { code: body.errors[0].code } : {}),
        ...(create && response.status === 201 && body.data ? { id: body.data.id } : {}),
      });
    };
    const load = Array.from({ length: WORKERS }, async (_, worker) => {
      for (let n = worker; !stop && n < 100_000; n += WORKERS) {
        await request(n);
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    });

    await new Promise((resolve) => setTimeout(resolve, 1000));
    phase = 'down';
    await proxy.cut();
    await new Promise((resolve) => setTimeout(resolve, 2500));
    const ready = await fetch(`${base}/readyz`);
    assert.equal(ready.status, 503);
    // A key that is not cached must be looked up: 503 as well, not 500 and not 401.
    const uncached = await fetch(`${base}/v1/posts`, {
      headers: { authorization: `Bearer svc_${crypto.randomUUID()}` },
    });
    assert.equal(uncached.status, 503);
    assert.equal(
      ((await uncached.json()) as { errors: Array<{ code: string }> }).errors[0]!.code,
      'SERVICE_UNAVAILABLE',
    );
    await proxy.restore();
    phase = 'back';
    const backAt = outcomes.length;
    await eventually(
      async () => outcomes.slice(backAt).filter((o) => o.status === 201).length >= 10,
      'creates succeed again',
      30_000,
    );
    stop = true;
    await Promise.all(load);

    const unexpected = outcomes.filter((o) => ![200, 201, 503].includes(o.status));
    assert.deepEqual(unexpected, [], 'only successes and 503s');
    const unavailable = outcomes.filter((o) => o.status === 503);
    assert.ok(unavailable.length > 0, 'some requests met the outage');
    for (const o of unavailable) {
      assert.equal(o.code, 'SERVICE_UNAVAILABLE');
      assert.match(o.contentType, /^application\/vnd\.api\+json/);
    }
    assert.ok(
      outcomes.filter((o) => o.phase === 'up').every((o) => o.status < 300),
      'all served before the outage',
    );
    // Once a request succeeds after the restore, the pool has recovered: nothing after it fails.
    const back = outcomes.slice(backAt);
    const firstOk = back.findIndex((o) => o.status < 300);
    assert.ok(
      back.slice(firstOk).every((o) => o.status < 300),
      'no failure once the database answers again',
    );
    assert.equal((await fetch(`${base}/readyz`)).status, 200);

    // Nothing answered 201 is lost, and each has its event.
    const acknowledged = outcomes.flatMap((o) => (o.id ? [o.id] : []));
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      const rows = await client.query<{ id: string }>('select id from posts where id = any($1)', [acknowledged]);
      assert.equal(rows.rowCount, acknowledged.length);
      const events = await client.query<{ resource_id: string }>(
        `select resource_id from svc_events where type = 'posts.created' and resource_id = any($1)`,
        [acknowledged],
      );
      assert.equal(events.rowCount, acknowledged.length);
      const orphans = await client.query(
        `select count(*)::int as n from posts p where not exists (select 1 from svc_events e where e.resource_id = p.id)`,
      );
      assert.equal(orphans.rows[0].n, 0, 'no record without its event');
    } finally {
      await client.end();
    }
  });
});

// A batch whose set-aside creates (PostgreSQL: sent together at the end, records/queued-creates.ts)
// lose their connection to the database as they are sent: the answer is 503 SERVICE_UNAVAILABLE and the
// batch is not run a second time, since a lost connection can leave a commit's outcome unknown and a
// second run could store the batch twice. A client retries it, with an Idempotency-Key to be safe.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/server.ts';
import type { AppContext } from '../../src/app-context.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/test-databases.ts';
import { testConfig } from '../helpers/test-config.ts';
import { authorizationFor } from '../helpers/test-auth.ts';
import { TcpProxy } from '../helpers/tcp-proxy.ts';
import { statementsDuring, type SentStatement } from '../helpers/sent-statements.ts';

const SKIP = process.env.TEST_DATABASE_URL ? false : 'TEST_DATABASE_URL is not set';
const ATOMIC = 'application/vnd.api+json; ext="https://jsonapi.org/ext/atomic"';

describe('a batch losing its database connection', { skip: SKIP, timeout: 60_000 }, () => {
  let database: TestDatabase;
  let proxy: TcpProxy;
  let app: FastifyInstance;
  let ctx: AppContext;
  let auth: string;

  before(async () => {
    database = await createTestDatabase('postgres');
    proxy = await TcpProxy.start(Number(new URL(database.url).port || 5432));
    const config = testConfig(proxy.through(database.url), {
      resources: {
        notes: {
          fields: { title: { type: 'string', required: true } },
          permissions: { editor: { read: true, create: true } },
        },
      },
    });
    ({ app, ctx } = await buildApp({ config }));
    await app.ready();
    auth = await authorizationFor(app, ctx, 'editor', 'outage-editor');
  });

  after(async () => {
    await app?.close();
    await proxy?.close();
    await database?.drop();
  });

  it('answers 503 and does not run the batch again', async () => {
    const operations = Array.from({ length: 20 }, (_, i) => ({
      op: 'add',
      data: { type: 'notes', attributes: { title: `lost-${i}` } },
    }));
    let status = 0;
    let code: string | undefined;
    const sent = await statementsDuring(
      async () => {
        const response = await app.inject({
          method: 'POST',
          url: '/v1/operations',
          headers: { authorization: auth, 'content-type': ATOMIC },
          payload: JSON.stringify({ 'atomic:operations': operations }),
        });
        status = response.statusCode;
        code = response.json<{ errors: { code: string }[] }>().errors?.[0]?.code;
      },
      /batched inserts/,
      // Every open connection is reset just before the rows go; new connections work again at once.
      async () => {
        await proxy.cut();
        await proxy.restore();
      },
    );
    assert.equal(status, 503);
    assert.equal(code, 'SERVICE_UNAVAILABLE');
    assert.equal(sent.filter(({ text }) => /batched inserts/.test(text)).length, 1, 'sent once');
    // Background work (the webhook worker, the outbox) may open transactions of its own in the window:
    // only transactions that write notes are the batch's.
    assert.equal(batchTransactions(sent), 1, 'one transaction: not run again');
    // Read past the proxy: svc's pool may still hold connections the cut reset.
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      assert.equal((await client.query('select id from notes')).rows.length, 0);
    } finally {
      await client.end();
    }
  });
});

/** Transactions (per connection, from a BEGIN) in which a statement touched the notes table. */
function batchTransactions(sent: readonly SentStatement[]): number {
  const open = new Map<unknown, boolean>();
  let count = 0;
  for (const { client, text } of sent) {
    if (/^\s*begin/i.test(text)) open.set(client, false);
    else if (open.get(client) === false && /"notes"|batched inserts/.test(text)) {
      open.set(client, true);
      count++;
    }
  }
  return count;
}

// Redis goes away and comes back (a proxy in front of the real server cuts and refuses connections):
// svc keeps serving, rate limits fall back to per-process memory counters (and the log says so), events
// still reach other processes' stream clients through the outbox poll, and fan-out through Redis resumes
// when it is back.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { SseClient } from '../helpers/sse-client.ts';
import { adminAuthorization, startStreamTestApp, type StreamTestApp } from '../helpers/stream-test-app.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/test-databases.ts';
import { TcpProxy } from '../helpers/tcp-proxy.ts';
import { eventually } from '../helpers/svc-process.ts';

const REDIS = process.env.TEST_REDIS_URL;
const SKIP = REDIS ? false : 'TEST_REDIS_URL is not set';
if (SKIP) process.stdout.write(`# SKIP Redis outage: ${SKIP}\n`);

/** The app's JSON log lines, kept to check what it says about Redis. */
function logCapture(): { stream: Writable; lines: string[] } {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(...chunk.toString().split('\n').filter(Boolean));
      done();
    },
  });
  return { stream, lines };
}

describe('Redis down and back', { skip: SKIP, timeout: 120_000 }, () => {
  let database: TestDatabase;
  let proxy: TcpProxy;
  let writer: StreamTestApp;
  let reader: StreamTestApp;
  const log = logCapture();

  before(async () => {
    database = await createTestDatabase('sqlite');
    proxy = await TcpProxy.start(Number(new URL(REDIS!).port || 6379));
    const redisUrl = proxy.through(REDIS!);
    writer = await startStreamTestApp({ database, redisUrl, logger: { level: 'warn', stream: log.stream } });
    reader = await startStreamTestApp({ database, redisUrl });
  });

  after(async () => {
    await writer?.close();
    await reader?.close();
    await proxy?.close();
    await database?.drop();
  });

  it('keeps serving, limits in memory, and delivers events across processes before, during and after', async () => {
    const client = await SseClient.connect(`${reader.baseUrl}/v1/posts/stream`, {
      headers: { authorization: reader.editor.authorization },
    });
    try {
      await client.waitFor((b) => b.comments.includes('connected'), { what: 'connected' });
      const ids = [await writer.createPost({ title: 'before' })];
      await client.waitForEvents(1, 5000);

      await proxy.cut();
      // Requests keep being served while Redis is away.
      const limited = await writer.key('editor', 'redis-outage-limited');
      const statuses: number[] = [];
      for (let i = 0; i < 5; i++) {
        const response = await writer.app.inject({
          method: 'GET',
          url: '/v1/posts',
          headers: { authorization: limited.authorization },
        });
        statuses.push(response.statusCode);
      }
      assert.ok(
        statuses.every((s) => s === 200),
        `served without Redis: ${statuses.join(',')}`,
      );
      await eventually(
        async () => log.lines.some((line) => /rate limits fall back to per-process memory counters/.test(line)),
        'the fallback is logged',
        5000,
      );

      // Other processes still get the change, from the outbox poll.
      ids.push(await writer.createPost({ title: 'while Redis is down' }));
      await client.waitForEvents(2, 10_000);

      await proxy.restore();
      await eventually(
        async () => log.lines.some((line) => /Redis is reachable again/.test(line)),
        'the recovery is logged',
        20_000,
      );
      ids.push(await writer.createPost({ title: 'after' }));
      await client.waitForEvents(3, 5000);
      const delivered = client.events.map(
        (event) => (JSON.parse(event.data ?? '{}') as { new: { id: string } }).new.id,
      );
      assert.deepEqual(delivered, ids, 'each event once, in order');
    } finally {
      client.close();
    }
  });

  it('still enforces rate limits while Redis is away, per process', async () => {
    await proxy.cut();
    try {
      const tight = await writer.key('editor', 'redis-outage-tight');
      const admin = { authorization: adminAuthorization(writer.config) };
      const keys = await writer.app.inject({
        method: 'GET',
        url: `/admin/keys?userId=${tight.userId}`,
        headers: admin,
      });
      const keyId = (keys.json() as { data: Array<{ id: string }> }).data[0]!.id;
      const patched = await writer.app.inject({
        method: 'PATCH',
        url: `/admin/keys/${keyId}`,
        headers: admin,
        payload: { rateLimitMax: 3, rateLimitTimeWindow: 60_000 },
      });
      assert.equal(patched.statusCode, 200, patched.body);
      const statuses: number[] = [];
      for (let i = 0; i < 5; i++) {
        statuses.push(
          (
            await writer.app.inject({
              method: 'GET',
              url: '/v1/posts',
              headers: { authorization: tight.authorization },
            })
          ).statusCode,
        );
      }
      assert.deepEqual(statuses, [200, 200, 200, 429, 429]);
    } finally {
      await proxy.restore();
    }
  });
});

// Several svc processes on one database: a change committed by one process reaches a stream client
// connected to another, exactly once. PostgreSQL (LISTEN/NOTIFY) when TEST_DATABASE_URL is set; Redis
// pub/sub over a shared SQLite file when TEST_REDIS_URL is set. The writer is a real child process;
// on PostgreSQL a quicker variant runs two apps in this process.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { SseClient } from '../helpers/sse-client.ts';
import { startStreamTestApp, type StreamTestApp } from '../helpers/stream-test-app.ts';
import { createTestDatabase, type TestDatabase, type TestDialect } from '../helpers/test-databases.ts';

const WRITER = fileURLToPath(new URL('./fanout-writer.ts', import.meta.url));
const COUNT = 4;

/** Runs the writer process to completion (bounded) and returns the ids it created. */
function runWriter(env: Record<string, string>): Promise<string[]> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', WRITER],
      { env: { ...process.env, ...env }, timeout: 28_000 },
      (error, stdout, stderr) => {
        if (error) reject(new Error(`writer failed: ${error.message}\n${stderr}`));
        else resolve((JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}') as { ids: string[] }).ids);
      },
    );
  });
}

interface Setup {
  name: string;
  dialect: TestDialect;
  redisUrl?: string;
  skip: string | false;
}

const SETUPS: Setup[] = [
  {
    name: 'PostgreSQL LISTEN/NOTIFY',
    dialect: 'postgres',
    skip: process.env.TEST_DATABASE_URL ? false : 'TEST_DATABASE_URL is not set',
  },
  {
    name: 'Redis pub/sub over a shared SQLite file',
    dialect: 'sqlite',
    ...(process.env.TEST_REDIS_URL ? { redisUrl: process.env.TEST_REDIS_URL } : {}),
    skip: process.env.TEST_REDIS_URL ? false : 'TEST_REDIS_URL is not set',
  },
];

for (const setup of SETUPS) {
  if (setup.skip) process.stdout.write(`# SKIP event fan-out through ${setup.name}: ${setup.skip}\n`);
  describe(`event fan-out between processes: ${setup.name}`, { skip: setup.skip }, () => {
    let database: TestDatabase | undefined;
    let t: StreamTestApp | undefined;

    after(async () => {
      await t?.close();
      await database?.drop();
    });

    // Longer than other tests: starting a second Node process (TypeScript and the identity component
    // loading) alone takes 3 s, and over 10 s on a loaded machine.
    it('delivers a change made by another process to a stream client here, exactly once', {
      timeout: 30_000,
    }, async () => {
      database = await createTestDatabase(setup.dialect);
      t = await startStreamTestApp({ database, ...(setup.redisUrl ? { redisUrl: setup.redisUrl } : {}) });
      const client = await SseClient.connect(`${t.baseUrl}/v1/posts/stream`, {
        headers: { authorization: t.editor.authorization },
      });
      try {
        assert.equal(client.status, 200);
        await client.waitFor((b) => b.comments.includes('connected'), { what: 'the connected comment' });
        const ids = await runWriter({
          FANOUT_DATABASE_URL: database.url,
          FANOUT_COUNT: String(COUNT),
          ...(setup.redisUrl ? { FANOUT_REDIS_URL: setup.redisUrl } : {}),
        });
        assert.equal(ids.length, COUNT);
        await client.waitForEvents(COUNT, 5000);
        // A duplicate would come right behind; give it the time to show up.
        await sleep(300);
        const delivered = client.events.map((e) => (JSON.parse(e.data ?? '{}') as { new: { id: string } }).new.id);
        assert.deepEqual(delivered, ids);
      } finally {
        client.close();
      }
    });
  });
}

describe('event fan-out between two apps on one PostgreSQL database', {
  skip: process.env.TEST_DATABASE_URL ? false : 'TEST_DATABASE_URL is not set',
}, () => {
  let database: TestDatabase | undefined;
  let a: StreamTestApp | undefined;
  let b: StreamTestApp | undefined;

  after(async () => {
    await a?.close();
    await b?.close();
    await database?.drop();
  });

  it("delivers both apps' changes to a client of one of them, each exactly once", async () => {
    database = await createTestDatabase('postgres');
    b = await startStreamTestApp({ database });
    a = await startStreamTestApp({ database });
    const client = await SseClient.connect(`${b.baseUrl}/v1/posts/stream`, {
      headers: { authorization: b.editor.authorization },
    });
    try {
      await client.waitFor((block) => block.comments.includes('connected'), { what: 'the connected comment' });
      const remote = await a.createPost({ title: 'written on A' });
      const local = await b.createPost({ title: 'written on B' });
      await a.patchPost(remote, { title: 'edited on A' });
      await a.deletePost(local);
      await client.waitForEvents(4);
      await sleep(300);
      const seen = client.events.map((e) => {
        const data = JSON.parse(e.data ?? '{}') as { new: { id: string } | null; old: { id: string } | null };
        return [e.event, data.new?.id ?? data.old?.id];
      });
      // Each process delivers in the order it learns of events; across processes only the set is fixed.
      assert.deepEqual(
        [...seen].sort(),
        [
          ['posts.created', remote],
          ['posts.created', local],
          ['posts.updated', remote],
          ['posts.deleted', local],
        ].sort(),
      );
    } finally {
      client.close();
    }
  });
});

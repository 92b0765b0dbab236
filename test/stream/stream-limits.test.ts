// Open streams are bounded per API key (stream.maxPerKey) and per node (stream.maxPerNode, admin-token
// streams included): past either, 429 RATE_LIMITED with Retry-After before the stream starts.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { SseClient } from '../helpers/sse-client.ts';
import { adminAuthorization, startStreamTestApp, type StreamTestApp } from '../helpers/stream-test-app.ts';
import { testDialects } from '../helpers/test-databases.ts';

for (const dialect of testDialects()) {
  describe(`stream limits (${dialect})`, () => {
    let t: StreamTestApp;
    const clients: SseClient[] = [];
    const open = async (authorization: string) => {
      const client = await SseClient.connect(`${t.baseUrl}/v1/posts/stream`, { headers: { authorization } });
      clients.push(client);
      return client;
    };
    const assertRefused = async (client: SseClient) => {
      assert.equal(client.status, 429);
      assert.match(String(client.headers['content-type']), /^application\/vnd\.api\+json/);
      assert.match(String(client.headers['retry-after']), /^[1-9]\d*$/);
      const body = JSON.parse(await client.body()) as { errors: { status: string; code: string }[] };
      assert.equal(body.errors[0]?.code, 'RATE_LIMITED');
      assert.equal(body.errors[0]?.status, '429');
    };
    /** Opens a stream once the server has seen an earlier one close (bounded). */
    const openOnceFreed = async (authorization: string) => {
      for (let attempt = 0; attempt < 50; attempt++) {
        const client = await open(authorization);
        if (client.status === 200) return client;
        await client.body();
        await sleep(50);
      }
      throw new Error('the closed stream never freed its place');
    };

    before(async () => {
      t = await startStreamTestApp({ dialect, stream: { maxPerKey: 2, maxPerNode: 4 } });
    });
    after(async () => {
      for (const client of clients) client.close();
      await t.close();
    });

    it('refuses a key its third stream with 429 RATE_LIMITED and Retry-After, and frees the place on close', async () => {
      const k = await t.key('editor', `limit-key-${dialect}`);
      const first = await open(k.authorization);
      const second = await open(k.authorization);
      assert.equal(first.status, 200);
      assert.equal(second.status, 200);
      await assertRefused(await open(k.authorization));
      // Another key has its own count.
      const other = await t.key('editor', `limit-other-${dialect}`);
      const third = await open(other.authorization);
      assert.equal(third.status, 200);
      first.close();
      const again = await openOnceFreed(k.authorization);
      assert.equal(again.status, 200);
      again.close();
      second.close();
      third.close();
    });

    it('counts admin-token streams against the node bound', async () => {
      // Wait for the earlier test's streams to be released, then fill the node.
      const admin = adminAuthorization(t.config);
      const held: SseClient[] = [await openOnceFreed(admin)];
      for (let i = 1; i < 4; i++) held.push(await openOnceFreed(admin));
      for (const client of held) assert.equal(client.status, 200);
      await assertRefused(await open(admin));
      const k = await t.key('editor', `limit-node-${dialect}`);
      await assertRefused(await open(k.authorization));
      for (const client of held) client.close();
    });
  });
}

// Events are built from the write, never from a read: readers asking for `include` change nothing in
// what a stream subscriber receives, and a related record never rides along in an event.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { SseClient, type SseBlock } from '../helpers/sse-client.ts';
import { startStreamTestApp, type StreamTestApp } from '../helpers/stream-test-app.ts';
import { testDialects } from '../helpers/test-databases.ts';
import type { ResourceDefinition } from '../../src/config/config-types.ts';

const RESOURCES: Record<string, ResourceDefinition> = {
  authors: {
    fields: { name: { type: 'string', required: true }, secret: { type: 'string' } },
    permissions: { editor: { read: true, create: true }, reader: { read: { fields: ['name'] } } },
  },
  posts: {
    fields: {
      title: { type: 'string', required: true },
      author_id: { type: 'relation', resource: 'authors', onDelete: 'set_null' },
    },
    permissions: { editor: { read: true, create: true, update: true, delete: true }, reader: { read: true } },
  },
};

const payloadOf = (block: SseBlock) =>
  JSON.parse(block.data ?? 'null') as { old: unknown; new: Record<string, unknown> | null };

for (const dialect of testDialects()) {
  describe(`stream events while readers include related records (${dialect})`, () => {
    let t: StreamTestApp;
    let client: SseClient | undefined;
    before(async () => {
      t = await startStreamTestApp({ dialect, resources: RESOURCES });
    });
    after(async () => {
      client?.close();
      await t.close();
    });

    it('sends the same events, with no included record, whatever readers include', async () => {
      const reader = await t.key('reader', `reader-${dialect}`);
      client = await SseClient.connect(`${t.baseUrl}/v1/posts/stream`, {
        headers: { authorization: reader.authorization },
      });
      assert.equal(client.status, 200);
      await client.waitFor((b) => b.comments.includes('connected'), { what: 'the connected comment' });
      const author = await t.app.inject({
        method: 'POST',
        url: '/v1/authors',
        headers: { authorization: t.editor.authorization },
        payload: { name: 'Ann', secret: 'SECRET-42' },
      });
      const authorId = author.json().data.id as string;

      await t.createPost({ title: 'before', author_id: authorId });
      const first = await client.waitFor((b) => b.event === 'posts.created' && payloadOf(b).new?.title === 'before', {
        what: 'the first event',
      });
      // Both callers read with include, the editor seeing the author's secret.
      for (const authorization of [t.editor.authorization, reader.authorization]) {
        const read = await t.app.inject({ method: 'GET', url: '/v1/posts?include=author', headers: { authorization } });
        assert.equal(read.statusCode, 200, read.body);
        assert.equal(read.json().included.length, 1);
      }
      await t.createPost({ title: 'after', author_id: authorId });
      const second = await client.waitFor((b) => b.event === 'posts.created' && payloadOf(b).new?.title === 'after', {
        what: 'the second event',
      });

      for (const block of [first, second]) {
        assert.equal(block.raw.includes('SECRET'), false);
        assert.equal(block.raw.includes('included'), false);
        assert.equal(block.raw.includes('Ann'), false);
      }
      assert.deepEqual(Object.keys(payloadOf(second)), Object.keys(payloadOf(first)));
      assert.deepEqual(Object.keys(payloadOf(second).new!).sort(), Object.keys(payloadOf(first).new!).sort());
      assert.equal(payloadOf(second).new!.author_id, authorId);
    });
  });
}

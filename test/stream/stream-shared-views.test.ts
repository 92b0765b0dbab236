// Clients share a view (and so one serialization per event) only when they would see the same thing:
// same resource, read filter (after `$userId`), kinds and fields. Clients with other filters or fields,
// connected at the same time, still get exactly their own data.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { KeyPrincipal } from '../../src/model/principal.ts';
import { resolveAccess } from '../../src/permissions/resolve-access.ts';
import { createEventView } from '../../src/stream/event-view.ts';
import { EVENT_KINDS, type StreamQuery } from '../../src/stream/stream-query.ts';
import { SseClient, type SseBlock } from '../helpers/sse-client.ts';
import { startStreamTestApp, type StreamTestApp } from '../helpers/stream-test-app.ts';
import { testDialects } from '../helpers/test-databases.ts';

const principal = (role: string, userId: string, keyId = `key-${userId}`): KeyPrincipal => ({
  kind: 'key',
  keyId,
  userId,
  role,
  keyPermissions: null,
});
const newOf = (block: SseBlock): Record<string, unknown> =>
  (JSON.parse(block.data ?? 'null') as { new: Record<string, unknown> }).new;

describe('createEventView', () => {
  let t: StreamTestApp;
  before(async () => {
    t = await startStreamTestApp();
  });
  after(async () => {
    await t.close();
  });

  it('returns one view for equal resource, filter, kinds and fields, and distinct views otherwise', () => {
    const posts = t.ctx.registry.require('posts');
    const query = (kinds: readonly string[], fields: readonly string[]): Pick<StreamQuery, 'kinds' | 'fields'> => ({
      kinds: new Set(kinds) as StreamQuery['kinds'],
      fields,
    });
    const view = (p: KeyPrincipal, kinds: readonly string[] = EVENT_KINDS, fields = ['title', 'body']) =>
      createEventView(posts, resolveAccess(posts, p, 'read'), query(kinds, fields));

    // Two editors are two users with two grants, but the same unfiltered read: one view.
    assert.equal(view(principal('editor', 'editor-1')), view(principal('editor', 'editor-2')));
    assert.equal(view(principal('user', 'u1')), view(principal('user', 'u1', 'another-key-of-u1')));
    assert.equal(
      view(principal('user', 'u1'), ['deleted', 'created']),
      view(principal('user', 'u1'), ['created', 'deleted']),
    );
    // `author_id = $userId` differs per user.
    assert.notEqual(view(principal('user', 'u1')), view(principal('user', 'u2')));
    assert.notEqual(view(principal('user', 'u1')), view(principal('editor', 'u1')));
    assert.notEqual(
      view(principal('editor', 'editor-1'), EVENT_KINDS, ['title']),
      view(principal('editor', 'editor-1')),
    );
    assert.notEqual(view(principal('editor', 'editor-1'), ['created']), view(principal('editor', 'editor-1')));
  });
});

for (const dialect of testDialects()) {
  describe(`clients with different views on one stream (${dialect})`, () => {
    let t: StreamTestApp;
    before(async () => {
      t = await startStreamTestApp({ dialect });
    });
    after(async () => {
      await t.close();
    });

    it('delivers each connected client its own rows and fields while same-view clients share frames', async () => {
      const u1 = await t.key('user', 'shared-u1');
      const u2 = await t.key('user', 'shared-u2');
      const connect = async (authorization: string, query = '') => {
        const client = await SseClient.connect(`${t.baseUrl}/v1/posts/stream${query}`, { headers: { authorization } });
        assert.equal(client.status, 200);
        await client.waitFor((b) => b.comments.includes('connected'), { what: 'the connected comment' });
        return client;
      };
      const editors = await Promise.all([
        connect(t.editor.authorization),
        connect(t.editor.authorization),
        connect(t.editor.authorization),
      ]);
      const titlesOnly = await connect(t.editor.authorization, '?fields=title');
      const firstOfU1 = await connect(u1.authorization);
      const secondOfU1 = await connect(u1.authorization);
      const ofU2 = await connect(u2.authorization, '?fields=title');

      await t.createPost({ title: 'by u1', author_id: u1.userId, secret: 's1' });
      await t.createPost({ title: 'by u2', author_id: u2.userId, secret: 's2' });
      await t.createPost({ title: 'by nobody', author_id: 'nobody' });

      for (const client of editors) {
        const events = await client.waitForEvents(3);
        assert.deepEqual(
          events.map((e) => newOf(e).title),
          ['by u1', 'by u2', 'by nobody'],
        );
        assert.equal(newOf(events[0]!).secret, 's1');
        // Same view: the very same message text, id and all.
        assert.deepEqual(
          events.map((e) => e.raw),
          (await editors[0]!.waitForEvents(3)).map((e) => e.raw),
        );
      }
      const titles = await titlesOnly.waitForEvents(3);
      assert.deepEqual(
        titles.map((e) => Object.keys(newOf(e)).sort()),
        Array(3).fill(['created_at', 'id', 'title', 'updated_at']),
      );
      for (const client of [firstOfU1, secondOfU1]) {
        const [only] = await client.waitForEvents(1);
        assert.equal(newOf(only!).title, 'by u1');
        assert.equal('secret' in newOf(only!), false);
      }
      const [ofU2Only] = await ofU2.waitForEvents(1);
      assert.deepEqual(newOf(ofU2Only!).title, 'by u2');
      assert.deepEqual(Object.keys(newOf(ofU2Only!)).sort(), ['created_at', 'id', 'title', 'updated_at']);

      // Nothing else was on its way to the filtered clients: a marker they can see arrives next.
      await t.createPost({ title: 'marker', author_id: u1.userId });
      await firstOfU1.waitForEvents(2);
      await secondOfU1.waitForEvents(2);
      assert.deepEqual(
        firstOfU1.events.map((e) => newOf(e).title),
        ['by u1', 'marker'],
      );
      assert.deepEqual(
        ofU2.events.map((e) => newOf(e).title),
        ['by u2'],
      );
      for (const client of [...editors, titlesOnly, firstOfU1, secondOfU1, ofU2]) client.close();
    });
  });
}

// Each event is shaped by what its reader could read before and after the change: a row coming into
// view is `created`, one leaving it is `deleted`, hidden values never show (not even in `old`), an update
// of nothing the reader sees is not sent, and `deleted_at` appears only when asked for. Live and replayed.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { REPORT_POSTS } from '../helpers/report-posts.ts';
import { SseClient, type SseBlock } from '../helpers/sse-client.ts';
import { startStreamTestApp, type StreamTestApp } from '../helpers/stream-test-app.ts';
import { testDialects } from '../helpers/test-databases.ts';

interface Payload {
  old: Record<string, unknown> | null;
  new: Record<string, unknown> | null;
  changes: { added: string[]; updated: string[]; removed: string[] };
}
const NO_PAYLOAD: Payload = { old: null, new: null, changes: { added: [], updated: [], removed: [] } };
/** An event's data; comments and the preamble read as an empty payload. */
const payloadOf = (block: SseBlock): Payload =>
  block.data === undefined ? NO_PAYLOAD : (JSON.parse(block.data) as Payload);

for (const dialect of testDialects()) {
  describe(`stream events shaped by what the reader may see (${dialect})`, () => {
    let t: StreamTestApp;
    const clients: SseClient[] = [];
    let next = 0;
    const reader = () => t.key('user', `reader-${dialect}-${next++}`);
    const connect = async (authorization: string, query = '', headers: Record<string, string> = {}) => {
      const client = await SseClient.connect(`${t.baseUrl}/v1/posts/stream${query}`, {
        headers: { authorization, ...headers },
      });
      clients.push(client);
      assert.equal(client.status, 200, client.status === 200 ? '' : await client.body());
      await client.waitFor((b) => b.comments.includes('connected'), { what: 'the connected comment' });
      return client;
    };
    /** A post everyone sees, written after the others: once it arrives, every earlier event has too. */
    const marker = async (client: SseClient, title = `marker ${next++}`) => {
      await t.createPost({ title, status: 'published' });
      await client.waitFor((b) => b.event === 'posts.created' && payloadOf(b).new?.title === title, {
        what: `the marker ${title}`,
      });
      return client.events.filter(
        (b) =>
          payloadOf(b).new?.title !== title &&
          payloadOf(b).old?.title !== title &&
          !String(payloadOf(b).new?.title ?? '').startsWith('marker'),
      );
    };

    before(async () => {
      t = await startStreamTestApp({ dialect, resources: { posts: REPORT_POSTS } });
    });
    after(async () => {
      for (const client of clients) client.close();
      await t.close();
    });

    it('delivers a draft published later as `created` with only the published values; the draft never shows', async () => {
      const u2 = await reader();
      const client = await connect(u2.authorization);
      const id = await t.createPost({
        title: 'Plans',
        body: 'SECRET draft text',
        status: 'draft',
        author_id: 'editor-1',
      });
      await t.patchPost(id, { body: 'Public text', status: 'published' });
      const events = await marker(client);
      assert.deepEqual(
        events.map((e) => e.event),
        ['posts.created'],
      );
      const created = payloadOf(events[0]!);
      assert.equal(created.old, null);
      assert.equal(created.new?.body, 'Public text');
      assert.deepEqual(created.changes, { added: ['title', 'body', 'status', 'author_id'], updated: [], removed: [] });
      assert.equal(events[0]!.raw.includes('SECRET'), false);
      assert.equal(events[0]!.raw.includes('draft'), false);
    });

    it('delivers a post taken back to draft as `deleted` with its last visible values and `new` null', async () => {
      const id = await t.createPost({ title: 'Back', body: 'visible', status: 'published', author_id: 'editor-1' });
      const u2 = await reader();
      const client = await connect(u2.authorization);
      await t.patchPost(id, { status: 'draft', body: 'SECRET again' });
      const events = await marker(client);
      assert.deepEqual(
        events.map((e) => e.event),
        ['posts.deleted'],
      );
      const deleted = payloadOf(events[0]!);
      assert.equal(deleted.new, null);
      assert.equal(deleted.old?.body, 'visible');
      assert.equal(deleted.old?.status, 'published');
      assert.deepEqual(deleted.changes, { added: [], updated: [], removed: ['title', 'body', 'status', 'author_id'] });
      assert.equal(events[0]!.raw.includes('SECRET'), false);
    });

    it('does not tell a reader that fields it cannot read changed (updated_at moves too)', async () => {
      const id = await t.createPost({ title: 'Rated', status: 'published', rating: 1 });
      const u2 = await reader();
      const client = await connect(u2.authorization);
      const editor = await connect(t.editor.authorization);
      await t.patchPost(id, { rating: 5, featured: true });
      await editor.waitFor((b) => b.event === 'posts.updated', { what: "the editor's update" });
      assert.deepEqual(await marker(client), []);
    });

    it('does not send an update of fields outside `?fields=` or outside the key scope', async () => {
      const id = await t.createPost({ title: 'Scoped', body: 'one', status: 'published' });
      const byFields = await connect((await reader()).authorization, '?fields=title');
      const scoped = await t.key('editor', `scoped-${dialect}`, { posts: { read: ['title'] } });
      const byScope = await connect(scoped.authorization);
      await t.patchPost(id, { body: 'two' });
      await t.patchPost(id, { title: 'Scoped 2' });
      for (const client of [byFields, byScope]) {
        const events = await marker(client);
        assert.deepEqual(
          events.map((e) => [e.event, payloadOf(e).changes.updated]),
          [['posts.updated', ['title']]],
        );
        assert.deepEqual(Object.keys(payloadOf(events[0]!).new ?? {}).sort(), [
          'created_at',
          'id',
          'title',
          'updated_at',
        ]);
      }
    });

    it('sends deleted_at only to a reader that asked for it', async () => {
      const plain = await connect((await reader()).authorization, '?fields=title');
      const asking = await connect((await reader()).authorization, '?fields=title,deleted_at');
      const id = await t.createPost({ title: 'Soft', status: 'published' });
      await t.deletePost(id);
      const plainEvents = await marker(plain);
      assert.deepEqual(
        plainEvents.map((e) => e.event),
        ['posts.created', 'posts.deleted'],
      );
      for (const event of plainEvents) assert.equal(event.raw.includes('deleted_at'), false);
      assert.deepEqual(Object.keys(payloadOf(plainEvents[0]!).new ?? {}).sort(), [
        'created_at',
        'id',
        'title',
        'updated_at',
      ]);
      assert.equal(payloadOf(plainEvents[1]!).new, null);

      const asked = await marker(asking);
      assert.deepEqual(
        asked.map((e) => e.event),
        ['posts.created', 'posts.deleted'],
      );
      const softDeleted = payloadOf(asked[1]!);
      assert.equal(typeof softDeleted.new?.deleted_at, 'string');
      assert.deepEqual(softDeleted.changes, { added: ['deleted_at'], updated: [], removed: [] });
    });

    it('counts a re-kinded event by the kind delivered: `?events=updated` does not get a publish', async () => {
      const client = await connect((await reader()).authorization, '?events=updated');
      const id = await t.createPost({ title: 'Kinds', status: 'draft' });
      await t.patchPost(id, { status: 'published' });
      await t.patchPost(id, { title: 'Kinds 2' });
      const last = 'Kinds 3';
      await t.patchPost(id, { title: last });
      await client.waitFor((b) => payloadOf(b).new?.title === last, { what: 'the last update' });
      assert.deepEqual(
        client.events.map((e) => [e.event, payloadOf(e).new?.title]),
        [
          ['posts.updated', 'Kinds 2'],
          ['posts.updated', last],
        ],
      );
    });

    it('applies the same rule to the events replayed after Last-Event-ID', async () => {
      const u2 = await reader();
      const first = await connect(u2.authorization);
      const start = `replay start ${next++}`;
      await t.createPost({ title: start, status: 'published' });
      const anchor = await first.waitFor((b) => payloadOf(b).new?.title === start, { what: 'the anchor event' });
      first.close();
      const id = await t.createPost({
        title: 'Replayed',
        body: 'SECRET draft',
        status: 'draft',
        author_id: 'editor-1',
      });
      await t.patchPost(id, { body: 'Public', status: 'published' });
      await t.patchPost(id, { rating: 3 });
      await t.patchPost(id, { status: 'draft' });
      const resumed = await connect(u2.authorization, '', { 'last-event-id': anchor.id! });
      const events = await marker(resumed);
      assert.deepEqual(
        events.map((e) => e.event),
        ['posts.created', 'posts.deleted'],
      );
      assert.equal(payloadOf(events[0]!).old, null);
      assert.equal(payloadOf(events[1]!).new, null);
      for (const event of events) assert.equal(event.raw.includes('SECRET'), false);
    });
  });
}

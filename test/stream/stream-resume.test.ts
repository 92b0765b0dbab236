// Resumption (docs/streams.md): a client reconnecting with Last-Event-ID (or `lastEventId`) first gets what
// it missed, in order and filtered like live events, then live events with no gap and no duplicate;
// an id that is unknown or older than the replay window gets `event: reset` and the stream goes on live.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { SseClient, type SseBlock } from '../helpers/sse-client.ts';
import { startStreamTestApp, type StreamTestApp } from '../helpers/stream-test-app.ts';
import { testDialects } from '../helpers/test-databases.ts';

const titleOf = (block: SseBlock): unknown => {
  const data = JSON.parse(block.data ?? 'null') as {
    new: { title?: unknown } | null;
    old: { title?: unknown } | null;
  } | null;
  return data?.new?.title ?? data?.old?.title;
};

for (const dialect of testDialects()) {
  describe(`stream resumption (${dialect})`, () => {
    let t: StreamTestApp;
    const clients: SseClient[] = [];
    const open = async (query: string, headers: Record<string, string> = {}) => {
      const client = await SseClient.connect(`${t.baseUrl}/v1/posts/stream${query}`, {
        headers: { authorization: t.editor.authorization, ...headers },
      });
      clients.push(client);
      assert.equal(client.status, 200);
      await client.waitFor((b) => b.comments.includes('connected'), { what: 'the connected comment' });
      return client;
    };

    before(async () => {
      t = await startStreamTestApp({ dialect, stream: { replayWindow: 5 } });
    });

    after(async () => {
      for (const client of clients) client.close();
      await t.close();
    });

    it('replays the missed events in order after Last-Event-ID, then continues live', async () => {
      const first = await open('');
      await t.createPost({ title: 'one' });
      const [seen] = await first.waitForEvents(1);
      first.close();
      await t.createPost({ title: 'two' });
      await t.createPost({ title: 'three' });
      const again = await open('', { 'last-event-id': seen!.id! });
      await again.waitForEvents(2);
      await t.createPost({ title: 'four' });
      const events = await again.waitForEvents(3);
      assert.deepEqual(events.map(titleOf), ['two', 'three', 'four']);
      assert.equal(new Set(events.map((e) => e.id)).size, 3);
    });

    it('takes the resumption point from the lastEventId query parameter too', async () => {
      const first = await open('');
      await t.createPost({ title: 'q-one' });
      const [seen] = await first.waitForEvents(1);
      first.close();
      await t.createPost({ title: 'q-two' });
      const again = await open(`?lastEventId=${seen!.id!}`);
      const [missed] = await again.waitForEvents(1);
      assert.equal(titleOf(missed!), 'q-two');
    });

    it('filters replayed events like live ones (kinds and the read filter)', async () => {
      const user = await t.key('user', 'resume-user');
      const first = await SseClient.connect(`${t.baseUrl}/v1/posts/stream?events=created`, {
        headers: { authorization: user.authorization },
      });
      clients.push(first);
      await t.createPost({ title: 'r-mine-1', author_id: user.userId });
      const [seen] = await first.waitForEvents(1);
      first.close();
      const mine = await t.createPost({ title: 'r-mine-2', author_id: user.userId });
      await t.createPost({ title: 'r-theirs', author_id: 'another-user' });
      await t.patchPost(mine, { body: 'edited' });
      const again = await SseClient.connect(`${t.baseUrl}/v1/posts/stream?events=created`, {
        headers: { authorization: user.authorization, 'last-event-id': seen!.id! },
      });
      clients.push(again);
      await again.waitForEvents(1);
      await t.createPost({ title: 'r-mine-3', author_id: user.userId });
      const events = await again.waitForEvents(2);
      assert.deepEqual(events.map(titleOf), ['r-mine-2', 'r-mine-3']);
    });

    it('sends event: reset for an unknown id, then goes on live', async () => {
      const client = await open('', { 'last-event-id': '01890000-0000-7000-8000-000000000000' });
      const reset = await client.waitFor((b) => b.event === 'reset', { what: 'the reset event' });
      assert.ok(reset.data && (JSON.parse(reset.data) as { reason: string }).reason.length > 0);
      assert.equal(reset.id, '', 'the reset clears the client-side last event id');
      await t.createPost({ title: 'after reset' });
      const events = await client.waitForEvents(2);
      assert.equal(titleOf(events[1]!), 'after reset');
    });

    it('sends event: reset for an id that is not a UUID', async () => {
      const client = await open('?lastEventId=not-an-id');
      await client.waitFor((b) => b.event === 'reset', { what: 'the reset event' });
    });

    it('sends event: reset for an id older than the replay window', async () => {
      const first = await open('');
      await t.createPost({ title: 'old' });
      const [seen] = await first.waitForEvents(1);
      first.close();
      // replayWindow is 5: after five newer events the old one is out of it.
      for (let i = 0; i < 5; i++) await t.createPost({ title: `newer ${i}` });
      const again = await open('', { 'last-event-id': seen!.id! });
      const events = await again.waitForEvents(1);
      assert.equal(events[0]!.event, 'reset');
    });

    it('replays the last event inside the window exactly at its edge', async () => {
      const first = await open('');
      await t.createPost({ title: 'edge' });
      const [seen] = await first.waitForEvents(1);
      first.close();
      for (let i = 0; i < 4; i++) await t.createPost({ title: `edge ${i}` });
      const again = await open('', { 'last-event-id': seen!.id! });
      const events = await again.waitForEvents(4);
      assert.deepEqual(events.map(titleOf), ['edge 0', 'edge 1', 'edge 2', 'edge 3']);
    });

    it('loses and repeats nothing when events are written while the client resumes', async () => {
      const first = await open('');
      await t.createPost({ title: 'race anchor' });
      const [anchor] = await first.waitForEvents(1);
      first.close();
      await t.createPost({ title: 'race missed' });
      // Writes in flight while the client reconnects and replays.
      const writes = Promise.all(Array.from({ length: 3 }, (_, i) => t.createPost({ title: `race live ${i}` })));
      const again = await open('', { 'last-event-id': anchor!.id! });
      await writes;
      // The replay runs after the preamble: a sixth newer event written before it would push the anchor
      // out of the window of 5 (a reset, not what this test is about), so the last write waits for it.
      await again.waitFor((b) => titleOf(b) === 'race missed', { what: 'the replayed event' });
      await t.createPost({ title: 'race last' });
      await again.waitFor((b) => titleOf(b) === 'race last', { what: 'the last event' });
      const titles = again.events.map(titleOf);
      assert.equal(titles[0], 'race missed');
      assert.deepEqual([...titles].sort(), ['race last', 'race live 0', 'race live 1', 'race live 2', 'race missed']);
      assert.equal(new Set(again.events.map((e) => e.id)).size, again.events.length);
    });
  });
}

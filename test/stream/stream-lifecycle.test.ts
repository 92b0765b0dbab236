// The life of a stream connection: its subscription ends when the client goes, a client that stops
// reading is dropped before the server buffers without bound, and closing the app ends every stream
// with a last `retry:` hint instead of hanging the shutdown.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { SseClient } from '../helpers/sse-client.ts';
import { startStreamTestApp, type StreamTestApp } from '../helpers/stream-test-app.ts';
import { OutboxEventHub } from '../../src/events/outbox-event-hub.ts';

function subscribers(t: StreamTestApp): number {
  assert.ok(t.ctx.events instanceof OutboxEventHub, 'the app runs the outbox event hub');
  return t.ctx.events.subscriberCount('posts');
}

/** Polls `condition` every 10 ms for at most `timeoutMs`. */
async function eventually(condition: () => boolean, what: string, timeoutMs = 3000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await sleep(10);
  }
}

describe('stream connection lifecycle', () => {
  let t: StreamTestApp;
  const open = async () => {
    const client = await SseClient.connect(`${t.baseUrl}/v1/posts/stream`, {
      headers: { authorization: t.editor.authorization },
    });
    assert.equal(client.status, 200);
    await client.waitFor((b) => b.comments.includes('connected'), { what: 'the connected comment' });
    return client;
  };

  before(async () => {
    t = await startStreamTestApp();
  });

  after(async () => {
    await t.close();
  });

  it('releases the subscription when the client disconnects', async () => {
    assert.equal(subscribers(t), 0);
    const a = await open();
    const b = await open();
    assert.equal(subscribers(t), 2);
    a.close();
    await eventually(() => subscribers(t) === 1, 'one subscriber is left');
    b.close();
    await eventually(() => subscribers(t) === 0, 'no subscriber is left');
    // Writes after the disconnect reach nobody and break nothing.
    await t.createPost({ title: 'nobody listens' });
  });

  it('disconnects a client that stops reading once too much is queued for it', async () => {
    const slow = await open();
    const reader = await open();
    slow.pause();
    const id = await t.createPost({ title: 'big', body: '' });
    // Each update event carries the old and the new body: about 1.2 MB per event.
    const big = (char: string) => char.repeat(600_000);
    let writes = 0;
    while (subscribers(t) === 2 && writes < 80) {
      await t.patchPost(id, { body: big(writes % 2 === 0 ? 'a' : 'b') });
      writes += 1;
    }
    await eventually(() => subscribers(t) === 1, 'the slow client is dropped', 5000);
    assert.ok(writes < 80, 'dropped before the write loop gave up');
    // The client that reads keeps its stream.
    await t.createPost({ title: 'still here' });
    await reader.waitFor((b) => b.data?.includes('still here') === true, {
      timeoutMs: 5000,
      what: 'the event after the drop',
    });
    slow.close();
    reader.close();
    await eventually(() => subscribers(t) === 0, 'no subscriber is left');
  });
});

describe('closing the app with open streams', () => {
  it('ends each stream with a final retry hint and closes promptly', async () => {
    const t = await startStreamTestApp({ stream: { retryMs: 2500 } });
    const client = await SseClient.connect(`${t.baseUrl}/v1/posts/stream`, {
      headers: { authorization: t.editor.authorization },
    });
    await client.waitFor((b) => b.comments.includes('connected'), { what: 'the connected comment' });
    const started = Date.now();
    await t.close();
    assert.ok(Date.now() - started < 3000, `app.close() took ${Date.now() - started} ms`);
    await client.ended;
    const last = client.blocks.at(-1);
    assert.equal(last?.retry, 2500);
    assert.equal(last?.event, undefined);
  });
});

// Fan-out cost: clients that see events through the same view share one evaluation and one
// serialization per event, and receive the very same bytes; clients with another view get their own.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import type { ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyBaseLogger } from 'fastify';
import type { EventHub } from '../../src/events/event-hub.ts';
import { announceHubClosing } from '../../src/events/hub-lifecycle.ts';
import { InProcessBus } from '../../src/events/in-process-bus.ts';
import type { RecordEvent } from '../../src/model/record-event.ts';
import { uuidv7 } from '../../src/store/uuid-v7.ts';
import { runEventStream } from '../../src/stream/event-stream.ts';
import type { EventView, ViewedEvent } from '../../src/stream/event-view.ts';
import { SseConnection } from '../../src/stream/sse-connection.ts';
import { MAX_FLUSH_INTERVAL_MS } from '../../src/stream/flush-scheduler.ts';
import type { AdminPrincipal } from '../../src/model/principal.ts';
import { resolveAccess } from '../../src/permissions/resolve-access.ts';
import { compileFilter } from '../../src/query/compile-filter.ts';
import { compileResource } from '../../src/resources/compile-resource.ts';
import { createEventView } from '../../src/stream/event-view.ts';
import { EVENT_KINDS } from '../../src/stream/stream-query.ts';

/** Long enough for any queued frame to be written. */
const flushed = () => sleep(MAX_FLUSH_INTERVAL_MS + 20);

/** An EventHub over the in-process bus, with a replay the test answers when it wants. */
class TestHub implements EventHub {
  readonly bus = new InProcessBus({
    dedupeRetainMs: 60_000,
    dedupeMaxSize: 1000,
    onListenerError: (error) => {
      throw error;
    },
  });
  replayed: RecordEvent[] = [];
  replayGate: Promise<void> = Promise.resolve();
  async start(): Promise<void> {}
  subscribe(resource: string, listener: (event: RecordEvent) => void): () => void {
    return this.bus.subscribe(resource, listener);
  }
  async replaySince(): Promise<RecordEvent[] | null> {
    await this.replayGate;
    return this.replayed;
  }
  async replayAcross(): Promise<RecordEvent[] | null> {
    return this.replaySince();
  }
  /** Replayed events the test says this process has yet to publish (committed, answer still on its way). */
  unpublished = new Set<string>();
  notYetPublished(resource: string, events: readonly RecordEvent[]): Set<string> {
    return new Set(
      events
        .filter((event) => this.unpublished.has(event.id) && this.bus.wants(event.id, resource))
        .map((event) => event.id),
    );
  }
  async close(): Promise<void> {
    announceHubClosing(this);
  }
}

/** Just enough of a ServerResponse for SseConnection: records every chunk written. */
class RecordingResponse extends EventEmitter {
  readonly chunks: (string | Buffer)[] = [];
  writableLength = 0;
  ended = false;
  writeHead(): this {
    return this;
  }
  write(chunk: string | Buffer): boolean {
    this.chunks.push(chunk);
    return true;
  }
  end(): void {
    this.ended = true;
  }
  destroy(): void {}
  /** Everything written, as the client would read it. */
  get text(): string {
    return this.chunks.map((chunk) => chunk.toString()).join('');
  }
  /** The data lines of the event messages written so far. */
  get data(): string[] {
    return [...this.text.matchAll(/^data: (.*)$/gm)].map((match) => match[1]!);
  }
}

const log = { error() {} } as unknown as FastifyBaseLogger;

function postEvent(title: string, authorId: string): RecordEvent {
  const id = uuidv7();
  const row = { id, title, author_id: authorId };
  return {
    id: uuidv7(),
    type: 'posts.created',
    kind: 'created',
    resource: 'posts',
    resourceId: id,
    createdAt: new Date().toISOString(),
    data: { old: null, new: row, changes: { added: ['title', 'author_id'], updated: [], removed: [] } },
    sessionVariables: { userId: null, role: 'editor' },
    traceContext: {},
  };
}

/** A view that counts its evaluations; `authorId` null sees every post, otherwise only that author's titles. */
function countingView(authorId: string | null): EventView & { calls: number } {
  const view = Object.assign(
    (event: RecordEvent): ViewedEvent | null => {
      view.calls += 1;
      const row = event.data.new!;
      if (authorId !== null && row.author_id !== authorId) return null;
      return {
        kind: event.kind,
        data: {
          old: null,
          new: authorId === null ? row : { id: row.id, title: row.title },
          changes: event.data.changes,
        },
      };
    },
    { calls: 0 },
  );
  return view;
}

async function openStream(
  hub: TestHub,
  view: EventView,
  lastEventId?: string,
): Promise<{ response: RecordingResponse; connection: SseConnection; running: Promise<void> }> {
  const response = new RecordingResponse();
  // The fake stands in for the ServerResponse SseConnection writes to; it has every member SseConnection uses.
  const connection = new SseConnection(response as unknown as ServerResponse, {
    retryMs: 1000,
    heartbeatMs: 60_000,
    maxQueuedMessages: 100,
    maxQueuedBytes: 1 << 20,
  });
  connection.open({});
  const running = runEventStream({
    hub,
    resource: 'posts',
    connection,
    view,
    lastEventId,
    retryMs: 1000,
    maxHeld: 100,
    log,
  });
  return { response, connection, running };
}

describe('stream fan-out by view', () => {
  it('evaluates and serializes each event once per view, however many clients share it', async () => {
    const hub = new TestHub();
    const all = countingView(null);
    const mine = countingView('u1');
    const shared = await Promise.all(Array.from({ length: 5 }, () => openStream(hub, all)));
    const own = await Promise.all(Array.from({ length: 3 }, () => openStream(hub, mine)));
    assert.equal(hub.bus.subscriberCount('posts'), 8, 'each connection is still one subscription');

    const events = [postEvent('first', 'u1'), postEvent('second', 'u2'), postEvent('third', 'u1')];
    for (const event of events) hub.bus.publish(event);
    await flushed();

    assert.equal(all.calls, 3, 'one evaluation per event for the five clients of one view');
    assert.equal(mine.calls, 3, 'one evaluation per event for the three clients of the other view');
    for (const { response } of shared)
      assert.deepEqual(
        response.data.map((d) => JSON.parse(d).new.title),
        ['first', 'second', 'third'],
      );
    for (const { response } of own) {
      assert.deepEqual(
        response.data.map((d) => JSON.parse(d)),
        events
          .filter((e) => e.data.new!.author_id === 'u1')
          .map((e) => ({ old: null, new: { id: e.data.new!.id, title: e.data.new!.title }, changes: e.data.changes })),
      );
    }
    // The three events of one loop turn went out as one write, and it is the same Buffer for every client.
    const lastWrites = shared.map(({ response }) => response.chunks.at(-1));
    assert.ok(Buffer.isBuffer(lastWrites[0]));
    for (const chunk of lastWrites) assert.equal(chunk, lastWrites[0]);
    assert.equal((lastWrites[0] as Buffer).toString().match(/^event: /gm)?.length, 3);

    for (const { connection } of [...shared, ...own]) connection.close();
    assert.equal(hub.bus.subscriberCount('posts'), 0);
  });

  it('writes clients whose views differ only in their filters the very same bytes for events all of them admit', async () => {
    const hub = new TestHub();
    const posts = compileResource('posts', {
      fields: { title: { type: 'string' }, author_id: { type: 'string' } },
      permissions: {},
    });
    const grant = resolveAccess(posts, { kind: 'admin' } as AdminPrincipal, 'read');
    const views = Array.from({ length: 4 }, (_, i) =>
      createEventView(posts, grant, {
        kinds: new Set(EVENT_KINDS),
        fields: ['title', 'author_id'],
        filter: compileFilter({ title: { neq: `not-${i}` } }, posts, { userId: null, role: 'admin' }),
      }),
    );
    assert.equal(new Set(views).size, 4, 'four filters, four views and four groups');
    const streams = await Promise.all(views.map((view) => openStream(hub, view)));
    for (const title of ['one', 'two', 'three']) hub.bus.publish(postEvent(title, 'u1'));
    await flushed();
    const lastWrites = streams.map(({ response }) => response.chunks.at(-1));
    assert.ok(Buffer.isBuffer(lastWrites[0]));
    assert.equal((lastWrites[0] as Buffer).toString().match(/^event: /gm)?.length, 3);
    for (const chunk of lastWrites) assert.equal(chunk, lastWrites[0], 'one Buffer, joined once');
    for (const { connection } of streams) connection.close();
  });

  it('delivers through the filter index what each of 100 filtered streams admits, entering and leaving', async () => {
    const hub = new TestHub();
    const posts = compileResource('posts', {
      fields: { title: { type: 'string' }, author_id: { type: 'string' } },
      permissions: {},
    });
    const grant = resolveAccess(posts, { kind: 'admin' } as AdminPrincipal, 'read');
    const viewFor = (filter: Record<string, unknown>) =>
      createEventView(posts, grant, {
        kinds: new Set(EVENT_KINDS),
        fields: ['title', 'author_id'],
        filter: compileFilter(filter, posts, { userId: null, role: 'admin' }),
      });
    const byAuthor = Array.from({ length: 100 }, (_, i) => viewFor({ author_id: { eq: `u${i}` } }));
    const notU1 = viewFor({ _not: { author_id: { eq: 'u1' } } });
    const streams = await Promise.all([...byAuthor, notU1].map((view) => openStream(hub, view)));
    const created = postEvent('one', 'u1');
    const row = created.data.new!;
    const moved: RecordEvent = {
      ...created,
      id: uuidv7(),
      type: 'posts.updated',
      kind: 'updated',
      data: {
        old: row,
        new: { ...row, author_id: 'u2' },
        changes: { added: [], updated: ['author_id'], removed: [] },
      },
    };
    hub.bus.publish(created);
    hub.bus.publish(moved);
    await flushed();
    const kinds = streams.map(({ response }) =>
      [...response.text.matchAll(/^event: posts\.(\w+)$/gm)].map((m) => m[1]),
    );
    assert.deepEqual(kinds[1], ['created', 'deleted'], 'u1 sees the post, then sees it leave');
    assert.deepEqual(kinds[2], ['created'], 'u2 sees it enter');
    assert.deepEqual(kinds[100], ['created'], 'the _not view sees it enter when it leaves u1');
    for (const [i, got] of kinds.entries()) if (i !== 1 && i !== 2 && i !== 100) assert.deepEqual(got, [], `u${i}`);
    for (const { connection } of streams) connection.close();
  });

  it('sends a client that goes live while frames are queued each event exactly once', async () => {
    const hub = new TestHub();
    const view = countingView(null);
    const live = await openStream(hub, view);
    let openGate!: () => void;
    hub.replayGate = new Promise((resolve) => (openGate = resolve));
    const before = postEvent('before', 'u1');
    hub.replayed = [before];
    const resuming = await openStream(hub, view, uuidv7());

    const during = postEvent('during replay', 'u1');
    hub.bus.publish(during);
    // The replay ends in the same loop turn, before the group's queued frame is written.
    openGate();
    await resuming.running;
    const after = postEvent('after', 'u1');
    hub.bus.publish(after);
    await flushed();

    assert.deepEqual(
      live.response.data.map((d) => JSON.parse(d).new.title),
      ['during replay', 'after'],
    );
    assert.deepEqual(
      resuming.response.data.map((d) => JSON.parse(d).new.title),
      ['before', 'during replay', 'after'],
    );
    live.connection.close();
    resuming.connection.close();
  });

  it('skips a replayed event when this process publishes it only after the replay, holding the others until then', async () => {
    const hub = new TestHub();
    const view = countingView(null);
    const live = await openStream(hub, view);
    const racing = postEvent('committed, not yet published', 'u1');
    hub.replayed = [racing];
    hub.unpublished.add(racing.id);
    const resuming = await openStream(hub, view, uuidv7());
    await resuming.running;

    const other = postEvent('other', 'u1');
    hub.bus.publish(other);
    await flushed();
    assert.deepEqual(
      resuming.response.data.map((d) => JSON.parse(d).new.title),
      ['committed, not yet published'],
      'held until the replayed event is published',
    );
    hub.bus.publish(racing);
    const after = postEvent('after', 'u1');
    hub.bus.publish(after);
    await flushed();

    assert.deepEqual(
      live.response.data.map((d) => JSON.parse(d).new.title),
      ['other', 'committed, not yet published', 'after'],
    );
    assert.deepEqual(
      resuming.response.data.map((d) => JSON.parse(d).new.title),
      ['committed, not yet published', 'other', 'after'],
      'each event once',
    );
    live.connection.close();
    resuming.connection.close();
  });

  it('writes queued frames before the final retry hint when the hub closes', async () => {
    const hub = new TestHub();
    const client = await openStream(hub, countingView(null));
    hub.bus.publish(postEvent('last words', 'u1'));
    await hub.close();
    assert.deepEqual(
      client.response.data.map((d) => JSON.parse(d).new.title),
      ['last words'],
    );
    assert.match(client.response.text, /retry: 1000\n\n$/);
    assert.equal(client.response.ended, true);
  });
});

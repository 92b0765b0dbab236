// Feeds one SSE connection with the changes of several resources (GET /v1/stream), as event-stream.ts
// does for one: subscribe to each and hold live events, replay what the client missed across all of them
// in commit order, release the held events the replay did not send, then go live.
//
// Order matters more here than for one resource: a client resumes every resource from the one id it
// last received, so it must never have received an event of one resource before an earlier event of
// another. The connection therefore keeps its own queue of frames, in the order its subscriptions saw
// them, rather than joining each view's shared queue (those flush one view after another). The frames
// themselves are still made once per view through the ViewGroups (`frameFor`).
import type { FastifyBaseLogger } from 'fastify';
import type { EventHub } from '../events/event-hub.ts';
import type { RecordEvent } from '../model/record-event.ts';
import { onHubClosing } from '../events/hub-lifecycle.ts';
import { UUID_PATTERN } from '../resources/field-types/uuid-field.ts';
import type { EventView } from './event-view.ts';
import { ConnectionQueue } from './connection-queue.ts';
import type { SseConnection } from './sse-connection.ts';
import type { SseFrames } from './sse-frames.ts';
import { encodeEventFrame, ViewGroup } from './view-group.ts';

/** One resource of the stream and what this caller sees of it. */
export interface StreamSource {
  resource: string;
  view: EventView;
}

export interface MultiEventStreamOptions {
  hub: EventHub;
  sources: readonly StreamSource[];
  connection: SseConnection;
  lastEventId: string | undefined;
  retryMs: number;
  /** Live events held while replaying; a client whose replay falls this far behind is dropped. */
  maxHeld: number;
  log: FastifyBaseLogger;
}

interface HeldFrame {
  id: string;
  frame: SseFrames;
}

/** How long a resumed stream waits for the replayed events this process has yet to publish (as event-stream.ts). */
const REPLAY_CATCH_UP_MS = 5000;

export async function runMultiEventStream(options: MultiEventStreamOptions): Promise<void> {
  const { hub, connection, sources } = options;
  const queue = new ConnectionQueue(connection);
  const held: HeldFrame[] = [];
  let live = false;
  let replayedToCome = new Set<string>();
  let goLive = () => {};
  const groups = sources.map((source) => ViewGroup.join(hub, source.resource, source.view, options.retryMs));
  const unsubscribes = sources.map((source, index) =>
    hub.subscribe(source.resource, (event) => {
      if (!live && replayedToCome.delete(event.id)) {
        if (replayedToCome.size === 0) goLive();
        return;
      }
      const frame = groups[index]!.frameFor(event);
      if (frame === null) return;
      if (live) return queue.push(frame);
      if (held.length < options.maxHeld) held.push({ id: event.id, frame });
      else connection.close();
    }),
  );
  const cancelClosing = onHubClosing(hub, () => {
    queue.flush();
    connection.close();
  });
  connection.onClosed(() => {
    for (const unsubscribe of unsubscribes) unsubscribe();
    cancelClosing();
    queue.discard();
    for (const group of groups) group.leave(connection);
  });
  if (options.lastEventId === undefined) {
    live = true;
    return;
  }

  const missed = UUID_PATTERN.test(options.lastEventId) ? await replay(options) : null;
  if (connection.closed) return;
  const sent = new Set<string>();
  if (missed === null) {
    connection.send({
      event: 'reset',
      data: JSON.stringify({ reason: 'The Last-Event-ID is unknown or older than the replay window; reload.' }),
      id: '',
      retry: options.retryMs,
    });
  } else {
    const viewOf = new Map(sources.map((source) => [source.resource, source.view]));
    for (const event of missed) {
      sent.add(event.id);
      const view = viewOf.get(event.resource);
      const frame = view === undefined ? null : encodeEventFrame(view, event, options.retryMs);
      if (frame !== null) connection.sendFrames(frame);
    }
  }
  for (const { id, frame } of held) if (!sent.has(id)) connection.sendFrames(frame);
  held.length = 0;
  if (missed) {
    for (const source of sources) {
      const ofSource = missed.filter((event) => event.resource === source.resource);
      for (const id of hub.notYetPublished(source.resource, ofSource)) replayedToCome.add(id);
    }
  }
  let timer: NodeJS.Timeout | undefined;
  goLive = () => {
    if (live) return;
    clearTimeout(timer);
    replayedToCome = new Set();
    for (const { frame } of held) connection.sendFrames(frame);
    held.length = 0;
    live = true;
  };
  if (replayedToCome.size === 0 || connection.closed) return goLive();
  timer = setTimeout(goLive, REPLAY_CATCH_UP_MS);
  timer.unref();
  connection.onClosed(() => clearTimeout(timer));
}

async function replay(options: MultiEventStreamOptions): Promise<RecordEvent[] | null> {
  try {
    const resources = options.sources.map((source) => source.resource);
    return await options.hub.replayAcross(resources, options.lastEventId!);
  } catch (error) {
    options.log.error({ err: error }, 'stream replay failed');
    return null;
  }
}

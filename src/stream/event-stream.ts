// Feeds one SSE connection from the hub: subscribe first and hold live events, replay what the client
// missed (Last-Event-ID), then release the held events that the replay did not already send, then go live.
// Nothing is lost between replay and live, and nothing is sent twice. Live events reach the connection
// through its ViewGroup, which frames each event once for all the clients with the same view.
import type { FastifyBaseLogger } from 'fastify';
import type { EventHub } from '../events/event-hub.ts';
import type { RecordEvent } from '../model/record-event.ts';
import { onHubClosing } from '../events/hub-lifecycle.ts';
import { UUID_PATTERN } from '../resources/field-types/uuid-field.ts';
import type { EventView } from './event-view.ts';
import type { SseConnection } from './sse-connection.ts';
import type { SseFrames } from './sse-frames.ts';
import { encodeEventFrame, ViewGroup } from './view-group.ts';

export interface EventStreamOptions {
  hub: EventHub;
  resource: string;
  connection: SseConnection;
  view: EventView;
  lastEventId: string | undefined;
  retryMs: number;
  /** Live events held while replaying; a client whose replay falls this far behind is dropped. */
  maxHeld: number;
  log: FastifyBaseLogger;
}

/** A live event that arrived during the replay, already framed (the bytes are shared with the group). */
interface HeldFrame {
  id: string;
  frame: SseFrames;
}

export async function runEventStream(options: EventStreamOptions): Promise<void> {
  const { hub, connection } = options;
  const group = ViewGroup.join(hub, options.resource, options.view, options.retryMs);
  const held: HeldFrame[] = [];
  let live = false;
  /** Replayed events not yet published here: they will still come through the subscription, and are skipped then. */
  let replayedToCome = new Set<string>();
  let goLive = () => {};
  // Every connection keeps its own subscription (the hub counts them as open streams). A live one hands
  // the event to the resource's live groups, of which only the first call per event does anything: each
  // group that can match it frames and queues it once for all of its live members (live-views.ts).
  const unsubscribe = hub.subscribe(options.resource, (event) => {
    if (live) return ViewGroup.dispatch(hub, event);
    if (replayedToCome.delete(event.id)) {
      // After this event's delivery: the live groups may yet be handed it, and must not pass it to us.
      if (replayedToCome.size === 0) queueMicrotask(() => goLive());
      return;
    }
    const frame = group.frameFor(event);
    if (frame === null) return;
    if (held.length < options.maxHeld) held.push({ id: event.id, frame });
    else connection.close();
  });
  const cancelClosing = onHubClosing(hub, () => {
    // Events already queued for this loop turn go out before the final retry hint.
    group.flush();
    connection.close();
  });
  connection.onClosed(() => {
    unsubscribe();
    cancelClosing();
    group.leave(connection);
  });
  if (options.lastEventId === undefined) {
    live = true;
    group.goLive(connection);
    return;
  }

  const sent = new Set<string>();
  const missed = UUID_PATTERN.test(options.lastEventId) ? await replay(options) : null;
  if (connection.closed) return;
  if (missed === null) {
    // The client must reload; clearing its id keeps it from asking for the same lost point again.
    connection.send({
      event: 'reset',
      data: JSON.stringify({ reason: 'The Last-Event-ID is unknown or older than the replay window; reload.' }),
      id: '',
      retry: options.retryMs,
    });
  } else {
    for (const event of missed) {
      sent.add(event.id);
      const frame = encodeEventFrame(options.view, event, options.retryMs);
      if (frame !== null) connection.sendFrames(frame);
    }
  }
  for (const { id, frame } of held) if (!sent.has(id)) connection.sendFrames(frame);
  held.length = 0;
  // The replay read what was committed, which can be ahead of what this process has published: such
  // an event would reach the group again once published. The connection goes live only after those
  // have come (and been skipped), holding other events meanwhile; a bounded wait, so a lost publish
  // could at worst repeat an event, never stall the stream.
  if (missed) for (const id of options.hub.notYetPublished(options.resource, missed)) replayedToCome.add(id);
  let timer: NodeJS.Timeout | undefined;
  goLive = () => {
    if (live) return;
    clearTimeout(timer);
    replayedToCome = new Set();
    for (const { frame } of held) connection.sendFrames(frame);
    held.length = 0;
    live = true;
    group.goLive(connection);
  };
  if (replayedToCome.size === 0 || connection.closed) return goLive();
  timer = setTimeout(goLive, REPLAY_CATCH_UP_MS);
  timer.unref();
  connection.onClosed(() => clearTimeout(timer));
}

/** How long a resumed stream waits for the replayed events this process has yet to publish. */
const REPLAY_CATCH_UP_MS = 5000;

async function replay(options: EventStreamOptions): Promise<RecordEvent[] | null> {
  try {
    return await options.hub.replaySince(options.resource, options.lastEventId!);
  } catch (error) {
    // Without the outbox we cannot say what was missed; the reset tells the client to reload.
    options.log.error({ err: error }, 'stream replay failed');
    return null;
  }
}

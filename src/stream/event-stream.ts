// Feeds one SSE connection from the hub: subscribe first and hold live events, replay what the client
// missed (Last-Event-ID), then release the held events that the replay did not already send, then go live.
// Nothing is lost between replay and live, and nothing is sent twice.
import type { FastifyBaseLogger } from 'fastify';
import type { EventHub } from '../events/event-hub.ts';
import type { RecordEvent } from '../events/record-event.ts';
import { onHubClosing } from '../events/hub-lifecycle.ts';
import { UUID_PATTERN } from '../resources/field-types/uuid-field.ts';
import type { EventView } from './event-view.ts';
import type { SseConnection } from './sse-connection.ts';

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

export async function runEventStream(options: EventStreamOptions): Promise<void> {
  const { hub, connection, view } = options;
  const held: RecordEvent[] = [];
  let live = false;
  const send = (event: RecordEvent) => {
    const data = view(event);
    if (data) connection.send({ event: event.type, data: JSON.stringify(data), id: event.id, retry: options.retryMs });
  };
  const unsubscribe = hub.subscribe(options.resource, (event) => {
    if (live) send(event);
    else if (held.length < options.maxHeld) held.push(event);
    else connection.close();
  });
  const cancelClosing = onHubClosing(hub, () => connection.close());
  connection.onClosed(() => {
    unsubscribe();
    cancelClosing();
  });
  if (options.lastEventId === undefined) {
    live = true;
    return;
  }

  const sent = new Set<string>();
  const missed = UUID_PATTERN.test(options.lastEventId) ? await replay(options) : null;
  if (connection.closed) return;
  if (missed === null) {
    // The client must reload; clearing its id keeps it from asking for the same lost point again.
    connection.send({ event: 'reset', data: JSON.stringify({ reason: 'The Last-Event-ID is unknown or older than the replay window; reload.' }), id: '', retry: options.retryMs });
  } else {
    for (const event of missed) {
      sent.add(event.id);
      send(event);
    }
  }
  for (const event of held) if (!sent.has(event.id)) send(event);
  held.length = 0;
  live = true;
}

async function replay(options: EventStreamOptions): Promise<RecordEvent[] | null> {
  try {
    return await options.hub.replaySince(options.resource, options.lastEventId!);
  } catch (error) {
    // Without the outbox we cannot say what was missed; the reset tells the client to reload.
    options.log.error({ err: error }, 'stream replay failed');
    return null;
  }
}

// The outbox row and each webhook payload are spliced around one serialization of the event's data:
// the text must be exactly what JSON.stringify of the whole object gave.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { eventDataJson, eventJson } from '../../src/events/event-json.ts';
import type { RecordEvent } from '../../src/model/record-event.ts';
import { ResourceRegistry } from '../../src/resources/resource-registry.ts';
import { buildDeliveryPayload, deliveryPayloadJson } from '../../src/webhooks/delivery/delivery-payload.ts';
import { fakeEvent } from '../helpers/fake-event.ts';

function updatedEvent(): RecordEvent {
  const event = fakeEvent('posts');
  return {
    ...event,
    type: 'posts.updated',
    kind: 'updated',
    data: {
      old: { id: event.resourceId, title: 'Before "quoted"', tags: ['a'], views: 1, note: 'line\nbreak \u2028' },
      new: { id: event.resourceId, title: 'After', tags: { nested: [1, null, true] }, views: 2.5, note: null },
      changes: { added: [], updated: ['title', 'tags', 'views', 'note'], removed: [] },
    },
    sessionVariables: { userId: 'u-1', role: 'author' },
    traceContext: { traceId: '0af7651916cd43dd8448eb211c80319c', requestId: 'req-7' },
  };
}

const registry = new ResourceRegistry({
  resources: { posts: { fields: { title: { type: 'string' }, tags: { type: 'json' } } } } as never,
});
const posts = registry.find('posts')!;

describe('eventJson', () => {
  for (const [name, make] of [
    ['a created event', () => fakeEvent('posts')],
    ['an updated event with escapes and a trace', updatedEvent],
  ] as const) {
    it(`writes ${name} as JSON.stringify does`, () => {
      const event = make();
      assert.equal(eventJson(event), JSON.stringify(event));
    });
  }

  it('serializes an event’s data once and reuses the text', () => {
    const event = updatedEvent();
    const first = eventDataJson(event.data);
    assert.equal(first, JSON.stringify(event.data));
    assert.equal(eventDataJson(event.data), first);
    // Same object, same text: the cache is keyed by the data object, not by its contents.
    assert.ok(eventJson(event).includes(first));
  });
});

describe('deliveryPayloadJson', () => {
  it('is JSON.stringify(buildDeliveryPayload(…)) without fieldIds', () => {
    const event = updatedEvent();
    const delivery = { id: 'd-1', attempt: 1 };
    assert.equal(
      deliveryPayloadJson(event, delivery, null, posts),
      JSON.stringify(buildDeliveryPayload(event, delivery, null, posts)),
    );
  });

  it('is JSON.stringify(buildDeliveryPayload(…)) with the selected fields', () => {
    const event = updatedEvent();
    const delivery = { id: 'd-2', attempt: 3 };
    const fieldIds = [...posts.fields.values()].map((field) => field.id);
    const expected = JSON.stringify(buildDeliveryPayload(event, delivery, fieldIds, posts));
    assert.equal(deliveryPayloadJson(event, delivery, fieldIds, posts), expected);
    assert.ok(JSON.parse(expected).fields.title, 'the fields part is there');
  });
});

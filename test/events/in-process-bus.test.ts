// The in-process bus: one delivery per event id, per-resource subscriptions, a failing subscriber
// does not stop the others, and the id memory stays bounded.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { InProcessBus } from '../../src/events/in-process-bus.ts';
import { RecentIds } from '../../src/events/recent-ids.ts';
import type { RecordEvent } from '../../src/model/record-event.ts';

function event(id: string, resource = 'notes'): RecordEvent {
  return {
    id,
    type: `${resource}.created`,
    kind: 'created',
    resource,
    resourceId: id,
    createdAt: new Date().toISOString(),
    data: { old: null, new: { id }, changes: { added: [], updated: [], removed: [] } },
    sessionVariables: { userId: null, role: 'admin' },
    traceContext: {},
  };
}

describe('InProcessBus', () => {
  it('delivers an event id once, to the subscribers of its resource only', () => {
    const errors: unknown[] = [];
    const bus = new InProcessBus({
      dedupeRetainMs: 60_000,
      dedupeMaxSize: 100,
      onListenerError: (error) => errors.push(error),
    });
    const notes: string[] = [];
    const tasks: string[] = [];
    bus.subscribe('notes', (e) => notes.push(e.id));
    bus.subscribe('tasks', (e) => tasks.push(e.id));
    assert.equal(bus.publish(event('a')), true);
    assert.equal(bus.publish(event('a')), false, 'the same id again (local commit, then the outbox tail)');
    bus.publish(event('b', 'tasks'));
    assert.deepEqual(notes, ['a']);
    assert.deepEqual(tasks, ['b']);
    assert.deepEqual(errors, []);
  });

  it('wants an event only when someone listens to its resource and it was not delivered yet', () => {
    const bus = new InProcessBus({ dedupeRetainMs: 60_000, dedupeMaxSize: 100, onListenerError: () => {} });
    assert.equal(bus.wants('a', 'notes'), false, 'no subscriber');
    const stop = bus.subscribe('notes', () => {});
    assert.equal(bus.wants('a', 'notes'), true);
    assert.equal(bus.wants('a', 'tasks'), false);
    bus.publish(event('a'));
    assert.equal(bus.wants('a', 'notes'), false, 'already delivered');
    stop();
    assert.equal(bus.wants('b', 'notes'), false, 'no subscriber left');
  });

  it('forgets a delivered id when the outbox tail reads it, and remembers one the tail brought first', () => {
    const bus = new InProcessBus({ dedupeRetainMs: 60_000, dedupeMaxSize: 100, onListenerError: () => {} });
    const seen: string[] = [];
    bus.subscribe('notes', (e) => seen.push(e.id));
    // Published at its local commit, then read back by the tail: skipped, and no longer remembered.
    bus.publish(event('own'));
    assert.equal(bus.wantsTailed('own', 'notes'), false, 'already delivered');
    assert.equal(bus.wants('own', 'notes'), true, 'forgotten once the tail has read it');
    // Brought by the tail first (another process's, or this one's before its commit listener ran):
    // delivered, and remembered, so a local publish afterwards is still a duplicate.
    assert.equal(bus.wantsTailed('first', 'notes'), true);
    assert.equal(bus.publish(event('first')), true);
    assert.equal(bus.publish(event('first')), false);
    assert.equal(bus.wantsTailed('other', 'tasks'), false, 'no subscriber');
    assert.deepEqual(seen, ['own', 'first']);
  });

  it('keeps delivering to the others when a subscriber throws or unsubscribes during delivery', () => {
    const errors: unknown[] = [];
    const bus = new InProcessBus({
      dedupeRetainMs: 60_000,
      dedupeMaxSize: 100,
      onListenerError: (error) => errors.push(error),
    });
    const seen: string[] = [];
    const unsubscribeSelf = bus.subscribe('notes', () => unsubscribeSelf());
    bus.subscribe('notes', () => {
      throw new Error('broken subscriber');
    });
    bus.subscribe('notes', (e) => seen.push(e.id));
    bus.publish(event('x'));
    bus.publish(event('y'));
    assert.deepEqual(seen, ['x', 'y']);
    assert.equal(errors.length, 2);
    assert.equal(bus.subscriberCount('notes'), 2);
  });

  it('counts one subscription per subscribe call, and none after unsubscribing', () => {
    const bus = new InProcessBus({ dedupeRetainMs: 60_000, dedupeMaxSize: 100, onListenerError: () => {} });
    const listener = () => {};
    const first = bus.subscribe('notes', listener);
    const second = bus.subscribe('notes', listener);
    assert.equal(bus.subscriberCount(), 2);
    first();
    first();
    assert.equal(bus.subscriberCount('notes'), 1);
    second();
    assert.equal(bus.subscriberCount(), 0);
  });
});

describe('RecentIds', () => {
  it('forgets the oldest ids beyond its size and its age', () => {
    const ids = new RecentIds({ retainMs: 1000, maxSize: 3 });
    for (const id of ['a', 'b', 'c', 'd']) ids.add(id, 0);
    assert.equal(ids.size, 3);
    assert.equal(ids.add('a', 0), true, "'a' was evicted by size");
    assert.equal(ids.add('d', 0), false);
    ids.add('e', 5000);
    assert.equal(ids.size, 1, 'older than retainMs');
  });
});

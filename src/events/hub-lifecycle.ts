// Lets a long-lived subscriber (an SSE connection) learn that its hub is closing, so it can end its
// response and the server can shut down. Kept beside the EventHub interface rather than in it: the
// interface's `subscribe` only carries events.
import type { EventHub } from './event-hub.ts';

const callbacks = new WeakMap<EventHub, Set<() => void>>();

/** Runs `callback` once when `hub` closes; returns a function that cancels it. */
export function onHubClosing(hub: EventHub, callback: () => void): () => void {
  let set = callbacks.get(hub);
  if (!set) {
    set = new Set();
    callbacks.set(hub, set);
  }
  const entry = () => callback();
  set.add(entry);
  return () => {
    callbacks.get(hub)?.delete(entry);
  };
}

/** Called by a hub's `close()`: runs and forgets every callback registered for it. */
export function announceHubClosing(hub: EventHub): void {
  const set = callbacks.get(hub);
  if (!set) return;
  callbacks.delete(hub);
  for (const callback of set) callback();
}

// The stream connections of one hub that see events through the same view (and retry hint) share a
// ViewGroup: each event is filtered, projected and serialized once for the group, not once per client,
// and queued frames reach every live connection as one write of one shared Buffer. 1,000 clients with
// one view cost one JSON.stringify per event, not 1,000, and one socket write per flush, not per event.
import type { EventHub } from '../events/event-hub.ts';
import type { RecordEvent } from '../model/record-event.ts';
import { viewIndexOf, type EventView, type ViewedEvent } from './event-view.ts';
import { LiveViews, type LiveGroupIndex } from './live-views.ts';
import { streamFlushes, type Flushable } from './flush-scheduler.ts';
import type { SseConnection } from './sse-connection.ts';
import { formatSseMessage } from './sse-format.ts';
import { SseFrames } from './sse-frames.ts';

/** Frames of viewed events, which views share (event-view.ts): serialized once, whichever view asks first. */
const framesOf = new WeakMap<ViewedEvent, { retryMs: number; frame: SseFrames }>();

/** An event as one view's clients receive it, or null when the view hides it. */
export function encodeEventFrame(view: EventView, event: RecordEvent, retryMs: number): SseFrames | null {
  const viewed = view(event);
  if (viewed === null) return null;
  const known = framesOf.get(viewed);
  if (known !== undefined && known.retryMs === retryMs) return known.frame;
  // The delivered kind, which may differ from the stored one (see event-view.ts).
  const type = viewed.kind === event.kind ? event.type : `${event.resource}.${viewed.kind}`;
  const frame = SseFrames.of(
    formatSseMessage({ event: type, data: JSON.stringify(viewed.data), id: event.id, retry: retryMs }),
  );
  framesOf.set(viewed, { retryMs, frame });
  return frame;
}

/** The batch the last flush wrote (a copy of it), and its frames: see framesOfBatch. */
let lastBatch: { pending: Buffer[]; frames: SseFrames } | null = null;

/**
 * The frames of one flush's queued buffers, the first `count` of `pending`. Groups whose views differ
 * only in their filters queue the very same buffers for an event all of them admit (event-view.ts shares
 * it), and flush one after another: such a batch is joined (and chunk-framed) once, not once per group.
 */
function framesOfBatch(pending: Buffer[], count: number): SseFrames {
  const last = lastBatch;
  if (last !== null && last.pending.length === count) {
    let same = true;
    for (let i = 0; i < count && same; i++) same = last.pending[i] === pending[i];
    if (same) return last.frames;
  }
  const batch = pending.slice(0, count);
  const frames = new SseFrames(count === 1 ? batch[0]! : Buffer.concat(batch), count);
  lastBatch = { pending: batch, frames };
  return frames;
}

/** Groups per hub (two apps in one process never share one), then per view and retry hint. */
const registry = new WeakMap<EventHub, Map<EventView, Map<number, ViewGroup>>>();

export class ViewGroup implements Flushable {
  /** The group for `view` of `resource` on `hub`, counting one more member until `leave`. */
  static join(hub: EventHub, resource: string, view: EventView, retryMs: number): ViewGroup {
    const byView = registry.get(hub) ?? new Map<EventView, Map<number, ViewGroup>>();
    registry.set(hub, byView);
    const byRetry = byView.get(view) ?? new Map<number, ViewGroup>();
    byView.set(view, byRetry);
    let group = byRetry.get(retryMs);
    if (!group) {
      const index = viewIndexOf(view) ?? { resource, keys: null, kindOf: () => undefined };
      const created = new ViewGroup(view, retryMs, LiveViews.of(hub, resource), index, () => {
        if (byRetry.get(retryMs) === created) byRetry.delete(retryMs);
        if (byRetry.size === 0 && byView.get(view) === byRetry) byView.delete(view);
      });
      byRetry.set(retryMs, created);
      group = created;
    }
    group.#members += 1;
    return group;
  }

  readonly #view: EventView;
  readonly #retryMs: number;
  readonly #forget: () => void;
  /** Where the group is listed while it has live members, so that events reach it (live-views.ts). */
  readonly #liveViews: LiveViews;
  readonly #index: LiveGroupIndex;
  /** Members, live or still replaying. */
  #members = 0;
  readonly #live = new Set<SseConnection>();
  /** The last event framed: every member's subscription sees the same event object in turn. */
  #framedEvent: RecordEvent | undefined;
  #frame: SseFrames | null = null;
  #queuedEvent: RecordEvent | undefined;
  /**
   * Queued frames: the first #pendingCount entries. The array is kept from flush to flush: a new one per
   * group per flush was most of the garbage of 1,000 filtered streams (BENCHMARKS.md, Memory).
   */
  #pending: Buffer[] = [];
  #pendingCount = 0;

  private constructor(
    view: EventView,
    retryMs: number,
    liveViews: LiveViews,
    index: LiveGroupIndex,
    forget: () => void,
  ) {
    this.#view = view;
    this.#retryMs = retryMs;
    this.#liveViews = liveViews;
    this.#index = index;
    this.#forget = forget;
  }

  /** The frame of a live event, computed once however many members ask. */
  frameFor(event: RecordEvent): SseFrames | null {
    if (event !== this.#framedEvent) {
      this.#frame = encodeEventFrame(this.#view, event, this.#retryMs);
      this.#framedEvent = event;
    }
    return this.#frame;
  }

  /**
   * Live-views found `event` may concern this group: queue its frame once for every live member. The live
   * set can only grow through goLive, which flushes first, so whoever is live at the flush was live
   * when each queued event arrived.
   */
  queue(event: RecordEvent): void {
    if (event === this.#queuedEvent) return;
    this.#queuedEvent = event;
    const frame = this.frameFor(event);
    if (frame === null) return;
    this.#pending[this.#pendingCount++] = frame.bytes;
    // When the scheduler says (see flush-scheduler.ts): under load, several events share each write.
    if (this.#pendingCount === 1) streamFlushes.schedule(this);
  }

  /** From now on `connection` receives the group's frames (after what it was sent itself). */
  goLive(connection: SseConnection): void {
    if (connection.closed) return;
    this.flush();
    this.#live.add(connection);
    if (this.#live.size === 1) this.#liveViews.add(this, this.#index);
  }

  /** Passes `event` to the live groups of its resource that can match it (see live-views.ts). */
  static dispatch(hub: EventHub, event: RecordEvent): void {
    LiveViews.of(hub, event.resource).dispatch(event);
  }

  /** Writes the queued frames to every live connection; returns how many it wrote to. */
  flush(): number {
    const count = this.#pendingCount;
    if (count === 0) return 0;
    this.#pendingCount = 0;
    streamFlushes.forget(this);
    // A copy is taken where one is needed (framesOfBatch): what a write below may queue goes to the array.
    const frames = framesOfBatch(this.#pending, count);
    // The array keeps what it held until overwritten: a burst's many frames are not kept for an idle group.
    if (count > 8) this.#pending = [];
    // A connection dropped for overflow leaves the set during this loop; Set iteration allows that.
    const writes = this.#live.size;
    for (const connection of this.#live) connection.sendFrames(frames);
    return writes;
  }

  leave(connection: SseConnection): void {
    if (this.#live.delete(connection) && this.#live.size === 0) this.#liveViews.remove(this, this.#index);
    this.#members -= 1;
    if (this.#members > 0) return;
    streamFlushes.forget(this);
    this.#pending = [];
    this.#pendingCount = 0;
    this.#framedEvent = this.#queuedEvent = undefined;
    this.#frame = null;
    this.#forget();
  }
}

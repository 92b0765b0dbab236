// The live view groups of one resource on one hub, indexed by their filters' equality conditions
// (filter-index-keys.ts). Each event is handed to the groups once, by whichever live connection's
// subscription sees it first (the others return at one comparison), and only to the groups it can
// match: those whose index keys meet the event's record before or after the change, plus those whose
// filter has no equality condition to index. 1,000 streams with 1,000 filters on distinct values cost
// a few map lookups per event, not 1,000 predicate tests.
import type { EventHub } from '../events/event-hub.ts';
import type { RecordEvent } from '../model/record-event.ts';
import type { RecordValues } from '../model/record-values.ts';
import { recordIndexKey, type FilterIndexKeys, type StorageKind } from './filter-index-keys.ts';

/** What live-views needs of a group: it ignores an event it was already given. */
export interface LiveGroup {
  queue(event: RecordEvent): void;
}

/** How a group is found: by its resource's name, its filter's keys, and each key field's storage kind. */
export interface LiveGroupIndex {
  resource: string;
  keys: FilterIndexKeys | null;
  kindOf(field: string): StorageKind | undefined;
}

interface FieldIndex {
  field: string;
  kind: StorageKind;
  byKey: Map<string, Set<LiveGroup>>;
}

export class LiveViews {
  /** Per hub (two apps in one process never share one), then per resource. */
  static of(hub: EventHub, resource: string): LiveViews {
    const byResource = registry.get(hub) ?? new Map<string, LiveViews>();
    registry.set(hub, byResource);
    let views = byResource.get(resource);
    if (!views) {
      views = new LiveViews();
      byResource.set(resource, views);
    }
    return views;
  }

  /** Groups tested with every event: their filters have no equality condition every match meets. */
  readonly #unindexed = new Set<LiveGroup>();
  readonly #fields = new Map<string, FieldIndex>();
  #lastEvent: RecordEvent | undefined;

  add(group: LiveGroup, index: LiveGroupIndex): void {
    if (index.keys === null) {
      this.#unindexed.add(group);
      return;
    }
    for (const [field, keys] of index.keys) {
      const kind = index.kindOf(field)!;
      let fieldIndex = this.#fields.get(field);
      if (!fieldIndex) {
        fieldIndex = { field, kind, byKey: new Map() };
        this.#fields.set(field, fieldIndex);
      }
      for (const key of keys) {
        const groups = fieldIndex.byKey.get(key) ?? new Set<LiveGroup>();
        groups.add(group);
        fieldIndex.byKey.set(key, groups);
      }
    }
  }

  remove(group: LiveGroup, index: LiveGroupIndex): void {
    if (index.keys === null) {
      this.#unindexed.delete(group);
      return;
    }
    for (const [field, keys] of index.keys) {
      const fieldIndex = this.#fields.get(field);
      if (!fieldIndex) continue;
      for (const key of keys) {
        const groups = fieldIndex.byKey.get(key);
        if (!groups) continue;
        groups.delete(group);
        if (groups.size === 0) fieldIndex.byKey.delete(key);
      }
      if (fieldIndex.byKey.size === 0) this.#fields.delete(field);
    }
  }

  /** Hands `event` to every group that can match it, once however many subscriptions call this. */
  dispatch(event: RecordEvent): void {
    if (event === this.#lastEvent) return;
    this.#lastEvent = event;
    for (const group of this.#unindexed) group.queue(event);
    if (this.#fields.size === 0) return;
    const { old, new: next } = event.data;
    // A group listed under both records' keys is queued twice: its queue ignores the second.
    if (old !== null) this.#queueMatching(old, event);
    if (next !== null) this.#queueMatching(next, event);
  }

  #queueMatching(record: RecordValues, event: RecordEvent): void {
    // Over the values: a Map's entries are a new [key, value] array each, twice per event per field.
    for (const { field, kind, byKey } of this.#fields.values()) {
      const key = recordIndexKey(record, field, kind);
      if (key === null) continue;
      const groups = byKey.get(key);
      if (groups) for (const group of groups) group.queue(event);
    }
  }
}

const registry = new WeakMap<EventHub, Map<string, LiveViews>>();

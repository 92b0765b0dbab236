// `changes` of an event: which fields were added (null → set), updated (set → other) or removed (set → null).
import { isDeepStrictEqual } from 'node:util';
import type { EventChanges, RecordValues } from './record-event.ts';

const present = (value: unknown) => value !== null && value !== undefined;

export function diffRecords(before: RecordValues | null, after: RecordValues | null): EventChanges {
  const changes: EventChanges = { added: [], updated: [], removed: [] };
  const names = new Set([...Object.keys(before ?? {}), ...Object.keys(after ?? {})]);
  for (const name of names) {
    const old = before?.[name];
    const next = after?.[name];
    if (!present(old) && present(next)) changes.added.push(name);
    else if (present(old) && !present(next)) changes.removed.push(name);
    else if (present(old) && present(next) && !isDeepStrictEqual(old, next)) changes.updated.push(name);
  }
  return changes;
}

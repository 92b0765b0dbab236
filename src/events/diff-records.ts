// `changes` of an event: which fields were added (null → set), updated (set → other) or removed (set → null).
import { isDeepStrictEqual } from 'node:util';
import type { EventChanges } from '../model/record-event.ts';
import type { RecordValues } from '../model/record-values.ts';

const present = (value: unknown) => value !== null && value !== undefined;

export function diffRecords(before: RecordValues | null, after: RecordValues | null): EventChanges {
  const changes: EventChanges = { added: [], updated: [], removed: [] };
  const names = new Set([...Object.keys(before ?? {}), ...Object.keys(after ?? {})]);
  for (const name of names) {
    // Own members only: a field named `constructor` missing on one side is absent, not Object.
    const old = before && Object.hasOwn(before, name) ? before[name] : undefined;
    const next = after && Object.hasOwn(after, name) ? after[name] : undefined;
    if (!present(old) && present(next)) changes.added.push(name);
    else if (present(old) && !present(next)) changes.removed.push(name);
    else if (present(old) && present(next) && !isDeepStrictEqual(old, next)) changes.updated.push(name);
  }
  return changes;
}

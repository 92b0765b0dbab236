// The event a record change produces, built from the record before and after it.
import { sessionVariablesOf } from '../model/session-variables.ts';
import type { Principal } from '../model/principal.ts';
import { uuidv7 } from '../store/uuid-v7.ts';
import { diffRecords } from './diff-records.ts';
import type { EventKind, RecordEvent } from '../model/record-event.ts';
import type { RecordValues } from '../model/record-values.ts';

/** Who made the change, and the request it came with. */
export interface EventOrigin {
  principal: Principal;
  requestId?: string;
  traceId?: string;
}

/** System columns change with every write (or never): an event's changes list only fields. */
const CHANGE_EXCLUDED = new Set(['id', 'created_at', 'updated_at']);

export function buildRecordEvent(
  resourceName: string,
  origin: EventOrigin,
  kind: EventKind,
  id: string,
  old: RecordValues | null,
  next: RecordValues | null,
): RecordEvent {
  const changes = diffRecords(old, next);
  for (const list of [changes.added, changes.updated, changes.removed]) {
    for (let i = list.length - 1; i >= 0; i--) if (CHANGE_EXCLUDED.has(list[i]!)) list.splice(i, 1);
  }
  const traceContext: RecordEvent['traceContext'] = {};
  if (origin.traceId) traceContext.traceId = origin.traceId;
  if (origin.requestId) traceContext.requestId = origin.requestId;
  return {
    id: uuidv7(),
    type: `${resourceName}.${kind}`,
    kind,
    resource: resourceName,
    resourceId: id,
    createdAt: new Date().toISOString(),
    data: { old, new: next, changes },
    sessionVariables: sessionVariablesOf(origin.principal),
    traceContext,
  };
}

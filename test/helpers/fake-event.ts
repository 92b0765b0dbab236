// A `created` event as the outbox stores it, for tests that fill the outbox without writing records.
import { uuidv7 } from '../../src/store/uuid-v7.ts';
import type { RecordEvent } from '../../src/model/record-event.ts';

export function fakeEvent(resource: string, createdAt = new Date().toISOString()): RecordEvent {
  const id = uuidv7();
  return {
    id,
    type: `${resource}.created`,
    kind: 'created',
    resource,
    resourceId: uuidv7(),
    createdAt,
    data: { old: null, new: { id }, changes: { added: [], updated: [], removed: [] } },
    sessionVariables: { userId: null, role: 'admin' },
    traceContext: {},
  };
}

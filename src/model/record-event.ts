// The event a committed change produces (spec 2.8, 6.2; docs/webhooks.md).
import type { RecordValues } from './record-values.ts';
import type { SessionVariables } from './session-variables.ts';

export type EventKind = 'created' | 'updated' | 'deleted';

export interface EventChanges {
  added: string[];
  updated: string[];
  removed: string[];
}

export interface EventData {
  old: RecordValues | null;
  new: RecordValues | null;
  changes: EventChanges;
}

export interface RecordEvent {
  /** UUIDv7: orders events and resumes streams. */
  id: string;
  /** `<resource>.<kind>` */
  type: string;
  kind: EventKind;
  resource: string;
  resourceId: string;
  createdAt: string;
  data: EventData;
  sessionVariables: SessionVariables;
  traceContext: { traceId?: string; requestId?: string };
}

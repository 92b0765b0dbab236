// The stream's query parameters (spec 6.1, docs/streams.md): `events`, `fields`, and the resumption point.
import { ApiError, type ErrorIssue } from '../errors/api-error.ts';
import type { EventKind } from '../model/record-event.ts';
import { SYSTEM_FIELDS, type Resource } from '../resources/resource.ts';

export const EVENT_KINDS: readonly EventKind[] = ['created', 'updated', 'deleted'];

export interface StreamQuery {
  kinds: ReadonlySet<EventKind>;
  /** Declared fields to deliver: the requested ones the caller may read, or every readable one. */
  fields: readonly string[];
  /** `deleted_at` was asked for in `fields` (soft-delete resources only): the soft delete's record is kept. */
  deletedAt: boolean;
  /** Resume after this event (Last-Event-ID header, else `lastEventId` query parameter). */
  lastEventId: string | undefined;
}

export type StreamRawQuery = Record<string, string | string[] | undefined>;

export function parseStreamQuery(
  raw: StreamRawQuery,
  lastEventIdHeader: string | undefined,
  resource: Resource,
  readable: ReadonlySet<string>,
): StreamQuery {
  const issues: ErrorIssue[] = [];
  const single = (name: string): string | undefined => {
    const value = raw[name];
    if (!Array.isArray(value)) return value;
    issues.push({ parameter: name, detail: `Parameter '${name}' is given more than once` });
    return undefined;
  };

  let kinds: Set<EventKind> = new Set(EVENT_KINDS);
  const eventsText = single('events');
  if (eventsText !== undefined) {
    kinds = new Set();
    for (const name of names(eventsText)) {
      if ((EVENT_KINDS as readonly string[]).includes(name)) kinds.add(name as EventKind);
      else issues.push({ parameter: 'events', detail: `Unknown event kind '${name}'; use ${EVENT_KINDS.join(', ')}` });
    }
    if (kinds.size === 0 && issues.length === 0)
      issues.push({ parameter: 'events', detail: `Name at least one of ${EVENT_KINDS.join(', ')}` });
  }

  let fields = resource.fieldNames.filter((name) => readable.has(name));
  let deletedAt = false;
  const fieldsText = single('fields');
  if (fieldsText !== undefined) {
    const requested = new Set<string>();
    for (const name of names(fieldsText)) {
      if (resource.fields.has(name)) requested.add(name);
      else if (name === 'deleted_at' && resource.softDelete) deletedAt = true;
      else if (!(SYSTEM_FIELDS as readonly string[]).includes(name))
        issues.push({ parameter: 'fields', detail: `Unknown field '${name}'` });
    }
    // Spec 6.1 rule 1: intersected with what the caller may read, silently (unlike the list endpoint).
    fields = fields.filter((name) => requested.has(name));
  }

  const lastEventIdText = single('lastEventId');
  if (issues.length > 0) throw new ApiError('INVALID_QUERY_PARAMS', issues);
  const lastEventId = (lastEventIdHeader ?? lastEventIdText)?.trim();
  return { kinds, fields, deletedAt, lastEventId: lastEventId ? lastEventId : undefined };
}

/** Comma-separated names; empty entries (a trailing comma) are ignored. */
function names(text: string): string[] {
  return text
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
}

// The stream's query parameters (spec 6.1, docs/streams.md): `events`, `fields`, and the resumption point.
import { ApiError, type ErrorIssue } from '../errors/api-error.ts';
import type { EventKind } from '../model/record-event.ts';
import { SYSTEM_FIELDS, type Resource } from '../resources/resource.ts';
import { MATCH_ALL, type FilterNode } from '../model/filter-node.ts';
import { parseListQuery, SEARCH_PARAMETER, type FilterParameterOptions } from '../query/parse-list-query.ts';
import type { LikePatternLimits } from '../query/like-pattern-limits.ts';

export const EVENT_KINDS: readonly EventKind[] = ['created', 'updated', 'deleted'];

export interface StreamQuery {
  kinds: ReadonlySet<EventKind>;
  /** Declared fields to deliver: the requested ones the caller may read, or every readable one. */
  fields: readonly string[];
  /** `deleted_at` was asked for in `fields` (soft-delete resources only): the soft delete's record is kept. */
  deletedAt: boolean;
  /** Resume after this event (Last-Event-ID header, else `lastEventId` query parameter). */
  lastEventId: string | undefined;
  /** The list's filters (`field=value`, `field__op=`, `_filter`) the stream applies with the before/after rule. */
  filter: FilterNode;
}

/** How a stream reads its filters: as a list does (docs/records.md), with the caller's variables and bounds. */
export interface StreamFilterOptions extends FilterParameterOptions {
  likeLimits: LikePatternLimits;
}

/** The stream's own parameters; every other one is a list filter. */
const STREAM_PARAMETERS: ReadonlySet<string> = new Set(['events', 'fields', 'lastEventId', 'token']);
/** List parameters that shape a page, which a stream does not have. */
const PAGE_PARAMETER = /^(_sort|_limit|_offset|include|page\[.*\]|fields\[.*\])$/;

export type StreamRawQuery = Record<string, string | string[] | undefined>;

export function parseStreamQuery(
  raw: StreamRawQuery,
  lastEventIdHeader: string | undefined,
  resource: Resource,
  readable: ReadonlySet<string>,
  filterOptions?: StreamFilterOptions,
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

  let filter: FilterNode = MATCH_ALL;
  const filterRaw: StreamRawQuery = {};
  for (const [name, value] of Object.entries(raw)) {
    if (value === undefined || STREAM_PARAMETERS.has(name)) continue;
    if (PAGE_PARAMETER.test(name))
      issues.push({ parameter: name, detail: `A stream has no pages: '${name}' applies to lists only` });
    // A change is matched against filters in memory, where there is no full-text index to ask.
    else if (name === SEARCH_PARAMETER)
      issues.push({ parameter: name, detail: `'${name}' applies to lists, exports and aggregates, not to streams` });
    else filterRaw[name] = value;
  }
  let code: ErrorIssue['code'] = 'INVALID_QUERY_PARAMS';
  if (Object.keys(filterRaw).length > 0) {
    try {
      const options = filterOptions && { vars: filterOptions.vars, limits: filterOptions.limits };
      filter = parseListQuery(filterRaw, resource, readable, filterOptions?.likeLimits, options).filter;
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      if (issues.length === 0) code = error.code;
      issues.push(...error.issues.map((issue) => ({ ...issue, code: issue.code ?? error.code })));
    }
  }
  if (issues.length > 0) throw new ApiError(code ?? 'INVALID_QUERY_PARAMS', issues);
  const lastEventId = (lastEventIdHeader ?? lastEventIdText)?.trim();
  return { kinds, fields, deletedAt, lastEventId: lastEventId ? lastEventId : undefined, filter };
}

/** Comma-separated names; empty entries (a trailing comma) are ignored. */
function names(text: string): string[] {
  return text
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
}

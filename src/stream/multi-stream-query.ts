// The parameters of GET /v1/stream (docs/streams.md): `resources=a,b`, then per resource what a single
// stream takes as `fields` and `_filter`, written `fields[a]=` and `_filter[a]=`; `events`, the resumption
// point and `token` apply to the whole connection. Each resource's part is read by the single stream's
// parser, so both accept and refuse exactly the same things.
import { ApiError, type ErrorIssue } from '../errors/api-error.ts';
import type { StreamFilterOptions, StreamQuery, StreamRawQuery } from './stream-query.ts';
import { parseStreamQuery } from './stream-query.ts';
import type { Resource } from '../resources/resource.ts';

/** At most this many resources on one connection: each costs a subscription and a view per event. */
export const MAX_STREAM_RESOURCES = 20;

/** Names a resource list may hold: resource names (checked by the registry afterwards). */
const RESOURCE_NAME = /^[a-z][a-z0-9_]{0,62}$/;
/** `fields[posts]`, `_filter[posts]`: a per-resource parameter and its resource. */
const PER_RESOURCE = /^(fields|_filter)\[([^\]]*)\]$/;
const WHOLE_STREAM: ReadonlySet<string> = new Set(['resources', 'events', 'lastEventId', 'token']);

/** The resources asked for, in order, and each one's own parameters as a single stream would take them. */
export interface MultiStreamRequest {
  resources: readonly string[];
  rawFor(resource: string): StreamRawQuery;
}

/** Reads the resource list and sorts the other parameters by resource; refuses what belongs to none. */
export function readMultiStreamRequest(raw: StreamRawQuery): MultiStreamRequest {
  const issues: ErrorIssue[] = [];
  const text = raw.resources;
  const resources: string[] = [];
  if (text === undefined)
    issues.push({ parameter: 'resources', detail: 'Name the resources to stream: resources=a,b' });
  else if (Array.isArray(text))
    issues.push({ parameter: 'resources', detail: "Parameter 'resources' is given more than once" });
  else {
    for (const name of text.split(',').map((part) => part.trim())) {
      if (name === '') continue;
      if (!RESOURCE_NAME.test(name))
        issues.push({ parameter: 'resources', detail: `'${name}' is not a resource name` });
      else if (resources.includes(name)) issues.push({ parameter: 'resources', detail: `'${name}' is named twice` });
      else resources.push(name);
    }
    if (resources.length === 0 && issues.length === 0)
      issues.push({ parameter: 'resources', detail: 'Name at least one resource' });
    if (resources.length > MAX_STREAM_RESOURCES)
      issues.push({ parameter: 'resources', detail: `At most ${MAX_STREAM_RESOURCES} resources per stream` });
  }
  if (Array.isArray(raw.lastEventId))
    issues.push({ parameter: 'lastEventId', detail: "Parameter 'lastEventId' is given more than once" });
  // Per resource, in maps: a name from the query string is never looked up on a plain object.
  const own = new Map<string, Map<string, string | string[]>>(resources.map((name) => [name, new Map()]));
  for (const [name, value] of Object.entries(raw)) {
    if (value === undefined || WHOLE_STREAM.has(name)) continue;
    const match = PER_RESOURCE.exec(name);
    if (match === null) {
      issues.push({
        parameter: name,
        detail: `Unknown parameter '${name}': a stream of several resources takes fields[name] and _filter[name]`,
      });
      continue;
    }
    const target = own.get(match[2]!);
    if (target === undefined) issues.push({ parameter: name, detail: `'${match[2]}' is not in 'resources'` });
    else target.set(match[1]!, value);
  }
  if (issues.length > 0) throw new ApiError('INVALID_QUERY_PARAMS', issues);
  return {
    resources,
    rawFor(resource) {
      const out: StreamRawQuery = {};
      if (raw.events !== undefined) out.events = raw.events;
      for (const [name, value] of own.get(resource) ?? []) out[name] = value;
      return out;
    },
  };
}

/**
 * One resource's part of the stream, read as a single stream's query; its errors name the parameter as
 * the client wrote it (`_filter[posts]`, not `_filter`).
 */
export function parseResourcePart(
  request: MultiStreamRequest,
  resource: Resource,
  readable: ReadonlySet<string>,
  filterOptions: StreamFilterOptions,
): StreamQuery {
  try {
    return parseStreamQuery(request.rawFor(resource.name), undefined, resource, readable, filterOptions);
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    throw error.withIssues(
      error.issues.map((issue) =>
        issue.parameter === 'fields' || issue.parameter === '_filter'
          ? { ...issue, parameter: `${issue.parameter}[${resource.name}]` }
          : issue,
      ),
    );
  }
}

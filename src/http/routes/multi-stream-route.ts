// GET /v1/stream?resources=a,b: the changes of several resources on one SSE connection (docs/streams.md).
// Each resource is looked up and authorized as GET /v1/:resource/stream would be, and refused with the
// same status and code (naming `resources`), so the list tells a caller nothing a single stream would not.
// Each gets its own fields, filter and view; the connection takes one place in the registry, which
// checks every resource's read when definitions are replaced.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../app-context.ts';
import { ApiError } from '../../errors/api-error.ts';
import { sessionVariablesOf } from '../../model/session-variables.ts';
import { fieldsTested, type GrantedRead } from '../../permissions/read-narrowed.ts';
import { resolveAccess } from '../../permissions/resolve-access.ts';
import { filterLimits } from '../../query/filter-limits.ts';
import { likePatternLimits } from '../../query/like-pattern-limits.ts';
import { createEventView } from '../../stream/event-view.ts';
import { runMultiEventStream, type StreamSource } from '../../stream/multi-event-stream.ts';
import { parseResourcePart, readMultiStreamRequest } from '../../stream/multi-stream-query.ts';
import type { StreamRawQuery } from '../../stream/stream-query.ts';
import type { StreamRegistry } from '../../stream/stream-registry.ts';
import { principalOf } from '../guards/authenticate-hook.ts';
import { openSseConnection, STREAM_MAX_QUEUED_MESSAGES } from './sse-response.ts';

type MultiStreamDeps = Pick<AppContext, 'config' | 'registry' | 'events' | 'log'>;

export async function openMultiStream(
  ctx: MultiStreamDeps,
  registry: StreamRegistry,
  request: FastifyRequest<{ Querystring: StreamRawQuery }>,
  reply: FastifyReply,
  changesSeen: number,
): Promise<void> {
  const raw = request.query ?? {};
  const asked = readMultiStreamRequest(raw);
  const principal = principalOf(request);
  // Every resource is authorized before any filter is read: a filter's errors could otherwise describe
  // a resource the caller may not read.
  const granted = asked.resources.map((name) => {
    try {
      const resource = ctx.registry.require(name);
      return { resource, grant: resolveAccess(resource, principal, 'read') };
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      throw error.withIssues(error.issues.map((issue) => ({ ...issue, parameter: 'resources' })));
    }
  });
  const filterOptions = {
    vars: sessionVariablesOf(principal),
    limits: filterLimits(ctx.config.server),
    likeLimits: likePatternLimits(ctx.config.server),
  };
  const issues: ApiError['issues'] = [];
  let failure: ApiError | undefined;
  const sources: StreamSource[] = [];
  const reads: GrantedRead[] = [];
  for (const { resource, grant } of granted) {
    try {
      const query = parseResourcePart(asked, resource, grant.fields, filterOptions);
      sources.push({ resource: resource.name, view: createEventView(resource, grant, query) });
      // As for one resource: the fields its filter tests count as read (a reload hiding one ends the stream).
      const tested = fieldsTested(query.filter).filter((field) => resource.fields.has(field));
      reads.push({ resource, grant, fields: [...new Set([...query.fields, ...tested])], deletedAt: query.deletedAt });
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      failure ??= error;
      issues.push(...error.issues.map((issue) => ({ ...issue, code: issue.code ?? error.code })));
    }
  }
  if (failure) throw failure.withIssues(issues);
  const lastEventId = lastEventIdOf(request, raw);
  const roleHeader = request.headers['x-service-role'];
  // Nothing is awaited between the lookups and registering (see stream-routes.ts): a reload either came
  // before and the grants are the new ones, or comes after and finds this stream registered.
  const slot = registry.register(principal, Array.isArray(roleHeader) ? roleHeader[0] : roleHeader, changesSeen, reads);
  const connection = openSseConnection(ctx, registry, slot, request, reply);
  await runMultiEventStream({
    hub: ctx.events,
    sources,
    connection,
    lastEventId,
    retryMs: ctx.config.stream.retryMs,
    maxHeld: STREAM_MAX_QUEUED_MESSAGES * 10,
    // A child logger without the URL: `?token=` must never reach a log line.
    log: ctx.log.child({ reqId: request.id, resources: asked.resources.join(',') }),
  });
}

/** The Last-Event-ID header, else the `lastEventId` parameter (a browser's EventSource cannot set headers). */
function lastEventIdOf(request: FastifyRequest, raw: StreamRawQuery): string | undefined {
  const header = request.headers['last-event-id'];
  const fromQuery = raw.lastEventId;
  // A repeated parameter was refused when the query was read.
  const text = (Array.isArray(header) ? header[0] : header) ?? (Array.isArray(fromQuery) ? undefined : fromQuery);
  const trimmed = text?.trim();
  return trimmed ? trimmed : undefined;
}

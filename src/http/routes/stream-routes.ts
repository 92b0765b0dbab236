// GET /v1/:resource/stream: the resource's changes as Server-Sent Events (spec 6.1, docs/streams.md).
// Everything that can fail (resource, access, query, stream limits) is decided before the stream starts,
// so failures are ordinary JSON:API errors; after that the response is hijacked and written as SSE, for
// as long as the caller's key and role stand (stream-registry.ts ends it when they no longer do).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../app-context.ts';
import { ApiError } from '../../errors/api-error.ts';
import { resolveAccess } from '../../permissions/resolve-access.ts';
import { fieldsTested } from '../../permissions/read-narrowed.ts';
import { parseStreamQuery, type StreamRawQuery } from '../../stream/stream-query.ts';
import { createEventView } from '../../stream/event-view.ts';
import { runEventStream } from '../../stream/event-stream.ts';
import type { StreamRegistry } from '../../stream/stream-registry.ts';
import { authenticateHook, principalOf } from '../guards/authenticate-hook.ts';
import { refusingRoute } from '../guards/refusing-route.ts';
import { authorizeAction } from '../guards/authorize-action.ts';
import { sessionVariablesOf } from '../../model/session-variables.ts';
import { filterLimits } from '../../query/filter-limits.ts';
import { likePatternLimits } from '../../query/like-pattern-limits.ts';
import { openMultiStream } from './multi-stream-route.ts';
import { openSseConnection, STREAM_MAX_QUEUED_MESSAGES } from './sse-response.ts';

type StreamParams = { resource: string };

type StreamRouteDeps = Pick<AppContext, 'config' | 'auth' | 'registry' | 'events' | 'streams' | 'log'>;

/** Access changes heard before each stream request was authenticated (see StreamRegistry.changes). */
const changesSeenAt = new WeakMap<FastifyRequest, number>();

export async function registerStreamRoutes(app: FastifyInstance, ctx: StreamRouteDeps): Promise<void> {
  const { stream } = ctx.config;
  const registry = ctx.streams;

  await app.register(
    async (v1) => {
      v1.addHook('onRequest', (request, _reply, done) => {
        changesSeenAt.set(request, registry.changes);
        done();
      });
      v1.addHook('onRequest', authenticateHook(ctx, { allowQueryToken: stream.allowQueryToken }));

      // A HEAD would run the handler and open a stream nobody reads.
      v1.get<{ Params: StreamParams; Querystring: StreamRawQuery }>(
        '/:resource/stream',
        { exposeHeadRoute: false, onRequest: authorizeAction(ctx, 'read') },
        (request, reply) => openStream(ctx, registry, request, reply),
      );

      // Several resources on one connection; each is authorized in the handler, as it is named in the query.
      v1.get<{ Querystring: StreamRawQuery }>('/stream', { exposeHeadRoute: false }, (request, reply) =>
        openMultiStream(ctx, registry, request, reply, changesSeenAt.get(request) ?? -1),
      );

      v1.route({
        method: ['POST', 'PUT', 'PATCH', 'DELETE'],
        url: '/stream',
        ...refusingRoute(
          () => new ApiError('METHOD_NOT_ALLOWED', 'The stream is read with GET', { headers: { Allow: 'GET' } }),
        ),
      });

      v1.route({
        method: ['POST', 'PUT', 'PATCH', 'DELETE'],
        url: '/:resource/stream',
        ...refusingRoute(
          () => new ApiError('METHOD_NOT_ALLOWED', 'The stream is read with GET', { headers: { Allow: 'GET' } }),
        ),
      });
    },
    { prefix: '/v1' },
  );
}

async function openStream(
  ctx: StreamRouteDeps,
  registry: StreamRegistry,
  request: FastifyRequest<{ Params: StreamParams; Querystring: StreamRawQuery }>,
  reply: FastifyReply,
): Promise<void> {
  const resource = ctx.registry.require(request.params.resource);
  const principal = principalOf(request);
  const grant = resolveAccess(resource, principal, 'read');
  const lastEventIdHeader = request.headers['last-event-id'];
  const query = parseStreamQuery(
    request.query ?? {},
    Array.isArray(lastEventIdHeader) ? lastEventIdHeader[0] : lastEventIdHeader,
    resource,
    grant.fields,
    {
      vars: sessionVariablesOf(principal),
      limits: filterLimits(ctx.config.server),
      likeLimits: likePatternLimits(ctx.config.server),
    },
  );
  const view = createEventView(resource, grant, query);
  const roleHeader = request.headers['x-service-role'];
  // Nothing is awaited between looking the resource up and registering: a reload (a synchronous swap)
  // either came before, and the grant is the new one, or comes after and finds this stream registered.
  // The fields the stream's own filter tests count as read: a reload that hides one ends the stream, or
  // its filter would go on telling the client about values it may no longer read.
  const tested = fieldsTested(query.filter).filter((field) => resource.fields.has(field));
  const read = { resource, grant, fields: [...new Set([...query.fields, ...tested])], deletedAt: query.deletedAt };
  const slot = registry.register(
    principal,
    Array.isArray(roleHeader) ? roleHeader[0] : roleHeader,
    changesSeenAt.get(request) ?? -1,
    [read],
  );

  const connection = openSseConnection(ctx, registry, slot, request, reply);
  await runEventStream({
    hub: ctx.events,
    resource: resource.name,
    connection,
    view,
    lastEventId: query.lastEventId,
    retryMs: ctx.config.stream.retryMs,
    maxHeld: STREAM_MAX_QUEUED_MESSAGES * 10,
    // A child logger without the URL: `?token=` must never reach a log line.
    log: ctx.log.child({ reqId: request.id, resource: resource.name }),
  });
}

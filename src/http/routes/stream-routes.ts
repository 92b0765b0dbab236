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
import { SseConnection } from '../../stream/sse-connection.ts';
import { runEventStream } from '../../stream/event-stream.ts';
import type { RevokeReason, StreamRegistry } from '../../stream/stream-registry.ts';
import { authenticateHook, principalOf } from '../guards/authenticate-hook.ts';
import { refusingRoute } from '../guards/refusing-route.ts';
import { authorizeAction } from '../guards/authorize-action.ts';
import { sessionVariablesOf } from '../../model/session-variables.ts';
import { filterLimits } from '../../query/filter-limits.ts';
import { likePatternLimits } from '../../query/like-pattern-limits.ts';

type StreamParams = { resource: string };

type StreamRouteDeps = Pick<AppContext, 'config' | 'auth' | 'registry' | 'events' | 'streams' | 'log'>;

/** A client that stops reading is dropped past either bound (it resumes with Last-Event-ID). */
export const STREAM_MAX_QUEUED_MESSAGES = 1000;
export const STREAM_MAX_QUEUED_BYTES = 4 * 1024 * 1024;

const SSE_HEADERS = {
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache',
  connection: 'keep-alive',
  'x-accel-buffering': 'no',
};

const REVOKED_REASONS: Record<RevokeReason, string> = {
  revoked: 'The API key or its owner changed; reconnect to be authorized again.',
  expired: 'The API key expired.',
  narrowed: 'The resource definitions changed what this stream may read; reconnect to be authorized again.',
};

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
    read,
  );

  reply.hijack();
  const { stream } = ctx.config;
  const connection = new SseConnection(reply.raw, {
    retryMs: stream.retryMs,
    heartbeatMs: stream.heartbeatMs,
    maxQueuedMessages: STREAM_MAX_QUEUED_MESSAGES,
    maxQueuedBytes: STREAM_MAX_QUEUED_BYTES,
  });
  // Keep what earlier hooks set (X-Request-Id, CORS, RateLimit-*); hijacking skips Fastify's own send.
  const headers: Record<string, string | number | string[]> = {};
  for (const [name, value] of Object.entries(reply.getHeaders())) if (value !== undefined) headers[name] = value;
  connection.onClosed(() => registry.release(slot));
  connection.open({ ...headers, ...SSE_HEADERS });
  request.raw.socket?.setNoDelay(true);
  // Nothing more reaches a stream whose right to read is gone; the client learns why, and a reconnection
  // is authenticated afresh (refused for a disabled, deleted or expired key).
  slot.attach((reason) =>
    connection.closeWith({ event: 'revoked', data: JSON.stringify({ reason: REVOKED_REASONS[reason] }) }),
  );

  await runEventStream({
    hub: ctx.events,
    resource: resource.name,
    connection,
    view,
    lastEventId: query.lastEventId,
    retryMs: stream.retryMs,
    maxHeld: STREAM_MAX_QUEUED_MESSAGES * 10,
    // A child logger without the URL: `?token=` must never reach a log line.
    log: ctx.log.child({ reqId: request.id, resource: resource.name }),
  });
}

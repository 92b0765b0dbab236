// GET /v1/:resource/stream: the resource's changes as Server-Sent Events (spec 6.1, CONTRACT 7).
// Everything that can fail (resource, access, query) is decided before the stream starts, so failures
// are ordinary JSON:API errors; after that the response is hijacked and written as SSE.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../app-context.ts';
import { ApiError } from '../../errors/api-error.ts';
import { resolveAccess } from '../../permissions/resolve-access.ts';
import { parseStreamQuery, type StreamRawQuery } from '../../stream/stream-query.ts';
import { createEventView } from '../../stream/event-view.ts';
import { SseConnection } from '../../stream/sse-connection.ts';
import { runEventStream } from '../../stream/event-stream.ts';
import { authenticateHook, principalOf } from '../authenticate-hook.ts';
import { refusingRoute } from '../refusing-route.ts';
import { authorizeAction } from '../authorize-action.ts';

type StreamParams = { resource: string };

/** A client that stops reading is dropped past either bound (it resumes with Last-Event-ID). */
export const STREAM_MAX_QUEUED_MESSAGES = 1000;
export const STREAM_MAX_QUEUED_BYTES = 4 * 1024 * 1024;

const SSE_HEADERS = {
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache',
  connection: 'keep-alive',
  'x-accel-buffering': 'no',
};

export async function registerStreamRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  await app.register(
    async (v1) => {
      v1.addHook('onRequest', authenticateHook(ctx, { allowQueryToken: ctx.config.stream.allowQueryToken }));

      // A HEAD would run the handler and open a stream nobody reads.
      v1.get<{ Params: StreamParams; Querystring: StreamRawQuery }>('/:resource/stream', { exposeHeadRoute: false, onRequest: authorizeAction(ctx, 'read') }, (request, reply) =>
        openStream(ctx, request, reply),
      );

      v1.route({
        method: ['POST', 'PUT', 'PATCH', 'DELETE'],
        url: '/:resource/stream',
        ...refusingRoute(() => new ApiError('METHOD_NOT_ALLOWED', 'The stream is read with GET', { headers: { Allow: 'GET' } })),
      });
    },
    { prefix: '/v1' },
  );
}

async function openStream(
  ctx: AppContext,
  request: FastifyRequest<{ Params: StreamParams; Querystring: StreamRawQuery }>,
  reply: FastifyReply,
): Promise<void> {
  const resource = ctx.registry.require(request.params.resource);
  const grant = resolveAccess(resource, principalOf(request), 'read');
  const lastEventIdHeader = request.headers['last-event-id'];
  const query = parseStreamQuery(
    request.query ?? {},
    Array.isArray(lastEventIdHeader) ? lastEventIdHeader[0] : lastEventIdHeader,
    resource,
    grant.fields,
  );
  const view = createEventView(resource, grant, query);

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
  connection.open({ ...headers, ...SSE_HEADERS });
  request.raw.socket?.setNoDelay(true);

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

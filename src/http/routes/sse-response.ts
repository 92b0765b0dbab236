// Turning a stream request's reply into an open SSE connection, for the single-resource and the
// multi-resource stream alike: the reply is hijacked, the headers earlier hooks set are kept, the
// registry's place is freed when the connection closes, and a revocation ends it with its reason.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../app-context.ts';
import { SseConnection } from '../../stream/sse-connection.ts';
import type { RevokeReason, StreamRegistry, StreamSlot } from '../../stream/stream-registry.ts';

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

export function openSseConnection(
  ctx: Pick<AppContext, 'config'>,
  registry: StreamRegistry,
  slot: StreamSlot,
  request: FastifyRequest,
  reply: FastifyReply,
): SseConnection {
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
  return connection;
}

// Bounds on what a client can hold open: the time to send a request (a body trickling in one byte at a
// time would keep its connection forever) and the number of connections at once.
import type { ServerOptions } from 'node:http';
import type { FastifyInstance } from 'fastify';
import { SERVER_LIMIT_DEFAULTS } from '../../config/config-schema.ts';
import type { SvcConfig } from '../../config/config-types.ts';

/** Node looks for late requests every 30 s by default: a shorter timeout needs a shorter look. */
const MAX_CHECK_INTERVAL_MS = 30_000;
const MIN_CHECK_INTERVAL_MS = 50;

/**
 * Fastify options: Node's request timeout covers receiving the request line, headers and body, and
 * stops once the request is complete, so a long response (an event stream) is never cut. Late
 * requests reach the `clientError` handler as ERR_HTTP_REQUEST_TIMEOUT (408 REQUEST_TIMEOUT).
 */
export function requestTimeoutOptions(server: SvcConfig['server']): { requestTimeout: number; http: ServerOptions } {
  const timeout = server.requestTimeoutMs ?? SERVER_LIMIT_DEFAULTS.requestTimeoutMs;
  if (timeout === 0) return { requestTimeout: 0, http: { requestTimeout: 0, headersTimeout: 0 } };
  const checkEvery = Math.min(MAX_CHECK_INTERVAL_MS, Math.max(MIN_CHECK_INTERVAL_MS, Math.floor(timeout / 4)));
  // Fastify sets requestTimeout on the server after creating it; Node only checks headersTimeout ≤ requestTimeout at creation.
  return {
    requestTimeout: timeout,
    http: { requestTimeout: timeout, headersTimeout: timeout, connectionsCheckingInterval: checkEvery },
  };
}

/** Connections past the ceiling are closed by Node as soon as they are accepted. */
export function installConnectionLimit(app: FastifyInstance, server: SvcConfig['server']): void {
  app.server.maxConnections = server.maxConnections ?? SERVER_LIMIT_DEFAULTS.maxConnections;
}

// CORS for the configured origins. With none configured, @fastify/cors would still run its hook on
// every request only to find CORS off, and answer preflights through its `OPTIONS *` route with a 404;
// that route alone keeps the same answers without the per-request hook.
import cors from '@fastify/cors';
import type { FastifyInstance } from 'fastify';

/** Every method a route has: the plugin's default (GET, HEAD, POST) would refuse updates and deletes. */
export const CORS_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'];

/** Request headers clients send: credentials, JSON:API bodies, preconditions, retries, stream resumption, role choice. */
export const CORS_ALLOWED_HEADERS = [
  'Authorization',
  'Content-Type',
  'If-Match',
  'If-None-Match',
  'Idempotency-Key',
  'Last-Event-ID',
  'X-Service-Role',
  'X-Request-Id',
];

/** Response headers a page may read besides the always-safe ones. */
export const CORS_EXPOSED_HEADERS = [
  'ETag',
  'Idempotency-Replayed',
  'Location',
  'RateLimit-Limit',
  'RateLimit-Remaining',
  'RateLimit-Reset',
  'Retry-After',
  'X-Request-Id',
];

export async function installCors(app: FastifyInstance, origins: readonly string[]): Promise<void> {
  if (origins.length === 0) {
    app.options('*', (_request, reply) => {
      reply.callNotFound();
    });
    return;
  }
  const allowed = new Set(origins);
  const anyOrigin = allowed.has('*');
  await app.register(cors, {
    // A function, not the list: given a list, the plugin still sends the allow and expose headers to an
    // origin it does not allow (only Access-Control-Allow-Origin is left out); refused here, it sends none.
    // `*` allows any origin without credentials, as browsers never send them to a `*` answer.
    origin: (origin, callback) =>
      callback(null, anyOrigin ? '*' : origin !== undefined && allowed.has(origin) ? origin : false),
    credentials: true,
    methods: CORS_METHODS,
    allowedHeaders: CORS_ALLOWED_HEADERS,
    exposedHeaders: CORS_EXPOSED_HEADERS,
    // Browsers keep a preflight's answer this long (seconds; Chromium caps it at 2 hours).
    maxAge: 600,
  });
}

// CORS for the configured origins. With none configured, @fastify/cors would still run its hook on
// every request only to find CORS off, and answer preflights through its `OPTIONS *` route with a 404;
// that route alone keeps the same answers without the per-request hook.
import cors from '@fastify/cors';
import type { FastifyInstance } from 'fastify';

export async function installCors(app: FastifyInstance, origins: readonly string[]): Promise<void> {
  if (origins.length === 0) {
    app.options('*', (_request, reply) => {
      reply.callNotFound();
    });
    return;
  }
  await app.register(cors, {
    origin: [...origins],
    credentials: true,
    exposedHeaders: ['X-Request-Id', 'RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', 'Retry-After'],
  });
}

// Every response carries X-Request-Id: the caller's when it sent a usable one, else a generated one.
import type { FastifyInstance } from 'fastify';

export function installRequestIds(app: FastifyInstance): void {
  app.addHook('onRequest', async (request, reply) => {
    reply.header('X-Request-Id', request.id);
  });
}

// Every response carries X-Request-Id: the caller's when it sent a usable one, else a generated one.
import type { FastifyInstance } from 'fastify';

export function installRequestIds(app: FastifyInstance): void {
  // Callback-style hooks (here and in the other per-request hooks) cost no promise per request.
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('X-Request-Id', request.id);
    done();
  });
}

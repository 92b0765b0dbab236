// One structured log line per request: method, route pattern, path without the query string (which may
// carry `?token=`), status, duration and request id.
import type { FastifyInstance } from 'fastify';

export function installRequestLogging(app: FastifyInstance): void {
  app.addHook('onResponse', async (request, reply) => {
    request.log.info(
      {
        method: request.method,
        route: request.routeOptions.url ?? 'unmatched',
        path: request.url.split('?')[0],
        status: reply.statusCode,
        ms: Math.round(reply.elapsedTime * 100) / 100,
      },
      'request completed',
    );
  });
}

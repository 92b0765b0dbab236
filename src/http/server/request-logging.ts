// One structured log line per request: method, route pattern, path without the query string (which may
// carry `?token=`), status, duration and request id. With `info` disabled (LOG_LEVEL=warn, as in
// production under load) the hook builds nothing: it runs on every request.
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';

export function installRequestLogging(app: FastifyInstance): void {
  // A callback hook: an async one costs a promise per request even when it logs nothing.
  app.addHook('onResponse', (request, reply, done) => {
    if (infoEnabled(request.log)) {
      const { url } = request;
      const query = url.indexOf('?');
      request.log.info(
        {
          method: request.method,
          route: request.routeOptions.url ?? 'unmatched',
          path: query < 0 ? url : url.slice(0, query),
          status: reply.statusCode,
          ms: Math.round(reply.elapsedTime * 100) / 100,
        },
        'request completed',
      );
    }
    done();
  });
}

/** pino answers from its level; a logger without `isLevelEnabled` (Fastify's no-op one, a custom one) is asked anyway. */
function infoEnabled(log: FastifyBaseLogger): boolean {
  const { isLevelEnabled } = log as FastifyBaseLogger & { isLevelEnabled?: (level: string) => boolean };
  return isLevelEnabled === undefined || isLevelEnabled.call(log, 'info');
}

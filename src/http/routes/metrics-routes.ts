// GET /metrics in the Prometheus text format, and the hooks that count every request. Registered on the
// root instance (not inside an encapsulated plugin) so its hooks see every route registered after it.
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../app-context.ts';
import { ApiError } from '../../errors/api-error.ts';
import type { ErrorCode } from '../../errors/error-catalogue.ts';
import { RequestSeries } from '../../metrics/request-series.ts';
import { EXPOSITION_CONTENT_TYPE } from '../../metrics/exposition-format.ts';
import { requireAdmin } from '../guards/require-admin.ts';

/** The 429s the key authenticator throws: a full rate-limit window, a used-up quota. */
const RATE_LIMIT_CODES: ReadonlySet<ErrorCode> = new Set<ErrorCode>(['RATE_LIMITED', 'USAGE_EXCEEDED']);

export async function registerMetricsRoutes(
  app: FastifyInstance,
  ctx: Pick<AppContext, 'config' | 'metrics' | 'auth'>,
): Promise<void> {
  const { metrics } = ctx;
  const series = new RequestSeries(metrics);
  app.addHook('onResponse', (request, reply, done) => {
    // The route pattern, never the path: one series per route rather than one per record id.
    const route = request.routeOptions.url ?? 'unmatched';
    const { requests, duration } = series.of(request.method, route, reply.statusCode);
    requests.inc();
    duration.observe(reply.elapsedTime / 1000);
    done();
  });
  // The error code is known here, before the error handler turns the error into a 429 document.
  app.addHook('onError', async (_request, _reply, error) => {
    if (error instanceof ApiError && RATE_LIMIT_CODES.has(error.code))
      metrics.rateLimitRejections.inc({ code: error.code });
  });

  const guard = ctx.config.server.publicMetrics === true ? {} : { onRequest: requireAdmin(ctx) };
  app.get('/metrics', guard, async (request, reply) => {
    const { text, failures } = await metrics.scrape();
    for (const { collector, error } of failures)
      request.log.warn({ err: error, collector }, 'a metrics collector failed');
    return reply.type(EXPOSITION_CONTENT_TYPE).header('Cache-Control', 'no-store').send(text);
  });
}

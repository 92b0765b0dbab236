// mountApp(runtime) → a ready Fastify instance with every plugin, hook and route, on the components a
// runtime built (runtime.ts); closing it stops and closes the runtime. It never listens (server.ts does).
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { Runtime } from './runtime.ts';
import { handleFrameworkError, installErrorHandling } from './http/server/error-handler.ts';
import { clientErrorOptions } from './http/server/client-errors.ts';
import { installBodyParsing } from './http/server/body-parsing.ts';
import { installUnstorableUrlCheck } from './http/server/unstorable-url.ts';
import { installBatchedWrites } from './http/server/batched-writes.ts';
import { installRequestLogging } from './http/server/request-logging.ts';
import { lazyChildLogger } from './http/server/lazy-request-logger.ts';
import { installCors } from './http/server/cors.ts';
import { installConnectionLimit, requestTimeoutOptions } from './http/server/connection-limits.ts';
import { registerResourceRoutes } from './http/routes/resource-routes.ts';
import { registerRecordHistoryRoutes } from './http/routes/record-history-routes.ts';
import { registerOperationsRoutes } from './http/routes/operations-routes.ts';
import { registerMetaRoutes } from './http/routes/meta-routes.ts';
import { registerMetricsRoutes } from './http/routes/metrics-routes.ts';
import { registerIdentityRoutes } from './http/routes/identity-routes.ts';
import { registerTokenRoutes } from './http/routes/token-routes.ts';
import { registerAdminUserRoutes } from './http/routes/admin-user-routes.ts';
import { registerAdminKeyRoutes } from './http/routes/admin-key-routes.ts';
import { registerStreamRoutes } from './http/routes/stream-routes.ts';
import { registerAdminWebhookRoutes } from './http/routes/admin-webhook-routes.ts';
import { registerAdminResourceRoutes } from './http/routes/admin-resource-routes.ts';
import { registerAdminDeletedRecordRoutes } from './http/routes/admin-deleted-record-routes.ts';
import { registerConsoleRoutes } from './http/routes/console-routes.ts';
import { registerMeRoutes } from './http/routes/me-routes.ts';
import { registerAdminReloadRoutes } from './http/routes/admin-reload-routes.ts';
import { GeneratedRoutes, registerCustomRoutes } from './http/routes/custom-routes.ts';
import { CustomRouteDocs } from './http/openapi/custom-route-docs.ts';
import { DeclaredBodies } from './http/bodies/declared-bodies.ts';

// Headers every answer carries. X-Request-Id: the caller's when it sent a usable one, else a generated
// one. The rest keep browsers from misreading API answers: no MIME sniffing, no framing, no referrer
// leaks, and no caching of authenticated data by shared caches.
function installResponseHeaders(app: FastifyInstance): void {
  // A callback-style hook (like the other per-request hooks) costs no promise per request.
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('X-Request-Id', request.id);
    reply.header('X-Content-Type-Options', 'nosniff');
    reply.header('X-Frame-Options', 'DENY');
    reply.header('Referrer-Policy', 'no-referrer');
    reply.header('Cross-Origin-Resource-Policy', 'same-site');
    if (request.headers.authorization !== undefined) reply.header('Cache-Control', 'no-store');
    done();
  });
}

export interface MountOptions {
  /** Where requests are logged (through a child per request); without it Fastify logs nothing. */
  log?: FastifyBaseLogger;
}

export async function mountApp(runtime: Runtime, options: MountOptions = {}): Promise<FastifyInstance> {
  const ctx = runtime.context;
  const { config, store } = ctx;
  const app = Fastify({
    // Without a logger Fastify already skips the per-request child.
    ...(options.log ? { loggerInstance: options.log, childLoggerFactory: lazyChildLogger } : { logger: false }),
    bodyLimit: config.server.bodyLimitBytes,
    genReqId: (request) => {
      const given = request.headers['x-request-id'];
      return typeof given === 'string' && /^[\w.:-]{1,128}$/.test(given) ? given : crypto.randomUUID();
    },
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 200 },
    frameworkErrors: handleFrameworkError,
    ...clientErrorOptions(),
    ...requestTimeoutOptions(config.server),
    // Fastify's own request lines carry the full URL (and so `?token=`); ours log the route instead.
    logController: new LogController({ disableRequestLogging: true }),
  });
  installConnectionLimit(app, config.server);
  installResponseHeaders(app);
  installRequestLogging(app);
  installBatchedWrites(app);
  installErrorHandling(app, { isUnavailable: (error) => store.dialect.isConnectionError(error) });
  installBodyParsing(app);
  installUnstorableUrlCheck(app);
  await installCors(app, config.server.cors.origins);
  const generated = new GeneratedRoutes(app);
  const bodies = new DeclaredBodies(app);
  app.decorate('bodyRoutes', bodies.routes);
  const customDocs = new CustomRouteDocs();
  await registerMetaRoutes(app, ctx, customDocs);
  await registerMetricsRoutes(app, ctx);
  await registerIdentityRoutes(app, ctx);
  await registerTokenRoutes(app, ctx);
  await registerMeRoutes(app, ctx);
  await registerAdminReloadRoutes(app, ctx);
  await registerAdminUserRoutes(app, ctx);
  await registerAdminKeyRoutes(app, ctx);
  await registerAdminWebhookRoutes(app, ctx);
  await registerAdminResourceRoutes(app, ctx);
  await registerAdminDeletedRecordRoutes(app, ctx);
  await registerStreamRoutes(app, ctx);
  await registerConsoleRoutes(app, ctx);
  await registerOperationsRoutes(app, ctx);
  await registerResourceRoutes(app, ctx);
  await registerRecordHistoryRoutes(app, ctx);
  bodies.done();
  // Last: a hooks file's routes, checked against every generated one.
  await registerCustomRoutes(app, ctx, generated, customDocs);

  // After the routes' own preClose hooks (readiness fails first); before the server stops accepting.
  app.addHook('preClose', async () => runtime.stop());
  app.addHook('onClose', async () => runtime.close());
  return app;
}

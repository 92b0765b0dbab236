// buildApp(config) → a ready Fastify instance with every route; it never listens (server.ts does).
import Fastify, { LogController, type FastifyInstance, type FastifyServerOptions } from 'fastify';
import type { SvcConfig } from './config/config-types.ts';
import type { AppContext } from './app-context.ts';
import { createStore, type Store } from './store/create-store.ts';
import { ResourceRegistry } from './resources/resource-registry.ts';
import { applyResourceSchema } from './cluster/resource-schema.ts';
import { createAuthComponent } from './auth/create-auth-component.ts';
import type { AdminTokenAnnouncer } from './auth/admin/stored-admin-token.ts';
import { definedRoles } from './config/defined-roles.ts';
import { roleWarnings } from './config/check-roles.ts';
import { RecordService } from './records/record-service.ts';
import { createOutboxTable } from './events/outbox.ts';
import { handleFrameworkError, installErrorHandling } from './http/error-handler.ts';
import { clientErrorOptions } from './http/client-errors.ts';
import { installRetention } from './http/retention-lifecycle.ts';
import { installBodyParsing } from './http/body-parsing.ts';
import { installUnstorableUrlCheck } from './http/unstorable-url.ts';
import { installRequestIds } from './http/request-ids.ts';
import { installBatchedWrites } from './http/batched-writes.ts';
import { installRequestLogging } from './http/request-logging.ts';
import { lazyChildLogger } from './http/lazy-request-logger.ts';
import { installSecurityHeaders } from './http/security-headers.ts';
import { installCors } from './http/cors.ts';
import { installConnectionLimit, requestTimeoutOptions } from './http/connection-limits.ts';
import { likePatternLimits } from './query/like-pattern-limits.ts';
import { registerResourceRoutes } from './http/routes/resource-routes.ts';
import { registerMetaRoutes } from './http/routes/meta-routes.ts';
import { registerMetricsRoutes } from './http/routes/metrics-routes.ts';
import { registerIdentityRoutes } from './http/routes/identity-routes.ts';
import { registerTokenRoutes } from './http/routes/token-routes.ts';
import { registerAdminUserRoutes } from './http/routes/admin-user-routes.ts';
import { registerAdminKeyRoutes } from './http/routes/admin-key-routes.ts';
import { registerStreamRoutes } from './http/routes/stream-routes.ts';
import { registerAdminWebhookRoutes } from './http/routes/admin-webhook-routes.ts';
import { registerAdminResourceRoutes } from './http/routes/admin-resource-routes.ts';
import { registerConsoleRoutes } from './http/routes/console-routes.ts';
import { registerMeRoutes } from './http/routes/me-routes.ts';
import { registerAdminReloadRoutes } from './http/routes/admin-reload-routes.ts';
import { createEventHub } from './events/create-event-hub.ts';
import { createWebhookService } from './webhooks/create-webhook-service.ts';
import { ClusterSignals } from './cluster/cluster-signals.ts';
import { DefinitionSync } from './cluster/definition-sync.ts';

/** How soon other nodes learn of a key, user or definitions change. */
const SIGNAL_POLL_MS = 500;
const SIGNAL_RETENTION_MS = 60 * 60 * 1000;

export interface BuildAppOptions {
  config: SvcConfig;
  /** Reuse an open store (tests share one database between apps); otherwise one is opened from the config. */
  store?: Store;
  /** Refuse nothing when applying the schema (CLI `--allow-destructive`). */
  allowDestructive?: boolean;
  logger?: FastifyServerOptions['logger'];
  /** Start the event dispatcher and webhook worker (default true). */
  startWorkers?: boolean;
  /** Namespace of the rate-limit and login-throttle counters in Redis (default `svc:`): tests sharing one Redis. */
  redisKeyPrefix?: string;
  /** The file the config was read from, recorded with the resource definitions it applies. */
  configFile?: string;
  /** Shows a generated admin token once (default: a block on standard error); tests capture it. */
  announceAdminToken?: AdminTokenAnnouncer;
}

export interface BuiltApp {
  app: FastifyInstance;
  ctx: AppContext;
}

export async function buildApp(options: BuildAppOptions): Promise<BuiltApp> {
  const { config } = options;
  const app = Fastify({
    logger: options.logger ?? false,
    // Without a logger Fastify already skips the per-request child.
    ...(options.logger ? { childLoggerFactory: lazyChildLogger } : {}),
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
  const ownsStore = options.store === undefined;
  const store = options.store ?? createStore(config.database.url);
  const registry = new ResourceRegistry(config);
  // What `svc check` prints as warnings (likely misspelled roles), for those who only ever start.
  for (const warning of roleWarnings(config as unknown as Record<string, unknown>)) app.log.warn({ path: warning.path }, warning.message);
  const schemaPlan = await applyResourceSchema(store, registry, { allowDestructive: options.allowDestructive === true }).catch(async (error: unknown) => {
    // A refused change ends the start: the store opened for it must not keep the process alive.
    if (ownsStore) await store.close();
    throw error;
  });
  if (schemaPlan.changes.length > 0) app.log.info({ changes: schemaPlan.changes.map((c) => c.text) }, 'database schema changed');
  const signals = new ClusterSignals({ db: store.db, dialect: store.dialect, log: app.log, pollIntervalMs: SIGNAL_POLL_MS, retentionMs: SIGNAL_RETENTION_MS });
  await signals.migrate();
  const definitions = new DefinitionSync({ config, store, registry, signals, log: app.log, ...(options.configFile !== undefined ? { source: options.configFile } : {}) });
  await definitions.recordStartup();
  const auth = await createAuthComponent(config, store, app.log, {
    signals,
    definedRoles: () => definedRoles(config, registry.definitions),
    ...(options.redisKeyPrefix !== undefined ? { redisKeyPrefix: options.redisKeyPrefix } : {}),
    ...(options.announceAdminToken !== undefined ? { announceAdminToken: options.announceAdminToken } : {}),
  });
  await auth.migrate();
  await createOutboxTable(store.db, store.dialect);
  const records = new RecordService(store, registry, app.log, likePatternLimits(config.server));
  const events = await createEventHub({ config, store, registry, records, log: app.log });
  const webhooks = await createWebhookService({ config, store, registry, records, signals, log: app.log });
  const ctx: AppContext = { config, store, registry, auth, records, events, webhooks, signals, definitions, log: app.log };

  installRequestIds(app);
  installRequestLogging(app);
  installSecurityHeaders(app);
  installBatchedWrites(app);
  installErrorHandling(app, { isUnavailable: (error) => store.dialect.isConnectionError(error) });
  installBodyParsing(app);
  installUnstorableUrlCheck(app);
  installRetention(app, ctx, { start: options.startWorkers !== false });
  await installCors(app, config.server.cors.origins);
  await registerMetaRoutes(app, ctx);
  await registerMetricsRoutes(app, ctx);
  await registerIdentityRoutes(app, ctx);
  await registerTokenRoutes(app, ctx);
  await registerMeRoutes(app, ctx);
  await registerAdminReloadRoutes(app, ctx);
  await registerAdminUserRoutes(app, ctx);
  await registerAdminKeyRoutes(app, ctx);
  await registerAdminWebhookRoutes(app, ctx);
  await registerAdminResourceRoutes(app, ctx);
  await registerStreamRoutes(app, ctx);
  await registerConsoleRoutes(app, ctx);
  await registerResourceRoutes(app, ctx);

  if (options.startWorkers !== false) {
    await signals.start();
    await events.start();
    await webhooks.start();
  }
  app.addHook('preClose', async () => {
    await signals.close();
    // Streams are closed first so the server is not kept open by long-lived responses.
    await events.close();
    await webhooks.close();
  });
  app.addHook('onClose', async () => {
    await auth.close();
    if (ownsStore) await store.close();
  });
  return { app, ctx };
}

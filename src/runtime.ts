// The running service without its HTTP face: builds the components from the config (store and schema,
// cluster signals, definitions, auth, records, event hub, webhooks, stream registry, metrics, retention),
// starts their background work and stops it in order. app.ts mounts HTTP on a runtime; nothing here
// knows about HTTP.
import type { Logger } from 'pino';
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
import { includeBounds } from './query/parse-compound-query.ts';
import { likePatternLimits } from './query/like-pattern-limits.ts';
import { createEventHub } from './events/create-event-hub.ts';
import { createWebhookService } from './webhooks/create-webhook-service.ts';
import { webhookSecretBox } from './webhooks/subscriptions/webhook-secret-box.ts';
import { previousServiceSecret, resolveIdentitySecret } from './auth/identity/resolve-identity-secret.ts';
import { ClusterSignals } from './cluster/cluster-signals.ts';
import { DefinitionSync } from './cluster/definition-sync.ts';
import { createStreamRegistry } from './stream/create-stream-registry.ts';
import { createServiceMetrics } from './metrics/service-metrics.ts';
import { outboxReaderProbe } from './events/outbox-reader-probe.ts';
import { deliveryQueueState } from './webhooks/delivery/delivery-queue-state.ts';
import { prunedRows, RETENTION_TABLES } from './retention/pruned-rows.ts';
import { streamFlushes } from './stream/flush-scheduler.ts';
import { RETENTION_DEFAULTS } from './config/config-schema.ts';
import { RetentionJob } from './retention/retention-job.ts';
import { IDEMPOTENCY_DEFAULTS } from './config/idempotency-settings.ts';
import { createIdempotencyTable } from './idempotency/idempotency-table.ts';
import { IdempotencyStore } from './idempotency/idempotency-store.ts';
import { HookRunner } from './hooks/hook-runner.ts';
import { loadConfiguredHooks } from './hooks/hooks-loader.ts';
import { SERVER_LIMIT_DEFAULTS } from './config/config-schema.ts';
import { FileService } from './files/file-service.ts';
import { createFileStorage } from './files/storage/create-file-storage.ts';
import { auditStorage, ORPHAN_GRACE_MS, repairStorage } from './files/storage-audit.ts';
import { referencedFiles } from './records/referenced-files.ts';
import { FILES_DEFAULTS } from './config/files-settings.ts';

/** How soon other nodes learn of a key, user or definitions change. */
const SIGNAL_POLL_MS = 500;
const SIGNAL_RETENTION_MS = 60 * 60 * 1000;

export interface RuntimeOptions {
  config: SvcConfig;
  log: Logger;
  /** Reuse an open store (tests share one database between apps); otherwise one is opened from the config. */
  store?: Store;
  /** Refuse nothing when applying the schema (CLI `--allow-destructive`). */
  allowDestructive?: boolean;
  /** Namespace of the rate-limit and login-throttle counters in Redis (default `svc:`): tests sharing one Redis. */
  redisKeyPrefix?: string;
  /** The file the config was read from, recorded with the resource definitions it applies. */
  configFile?: string;
  /** Shows a generated admin token once (default: a block on standard error); tests capture it. */
  announceAdminToken?: AdminTokenAnnouncer;
  /** Hooks given as an object (createSvc), in place of the config's `hooks` file. */
  hooks?: unknown;
}

export interface Runtime {
  /** The components, as the HTTP layer reads them. */
  readonly context: AppContext;
  /** Starts the background work: cluster signals, event dispatch, webhook delivery, retention. */
  start(): Promise<void>;
  /**
   * Stops the background work and ends the open streams: the first half of a shutdown, run before the
   * HTTP server stops, so that long-lived responses do not keep it open.
   */
  stop(): Promise<void>;
  /** Stops (if that was not done) and releases the rest: auth, and the store when the runtime opened it. */
  close(): Promise<void>;
}

/** Builds every component and prepares the database (schema, tables); starts nothing. */
export async function createRuntime(options: RuntimeOptions): Promise<Runtime> {
  const { config, log } = options;
  const ownsStore = options.store === undefined;
  const store = options.store ?? createStore(config.database.url, (message) => log.warn(message));
  const registry = new ResourceRegistry(config);
  // What `svc check` prints as warnings (likely misspelled roles), for those who only ever start.
  for (const warning of roleWarnings(config as unknown as Record<string, unknown>))
    log.warn({ path: warning.path }, warning.message);
  const schemaPlan = await applyResourceSchema(store, registry, {
    allowDestructive: options.allowDestructive === true,
  }).catch(async (error: unknown) => {
    // A refused change ends the start: the store opened for it must not keep the process alive.
    if (ownsStore) await store.close();
    throw error;
  });
  if (schemaPlan.changes.length > 0)
    log.info({ changes: schemaPlan.changes.map((c) => c.text) }, 'database schema changed');
  const signals = new ClusterSignals({
    db: store.db,
    dialect: store.dialect,
    log,
    pollIntervalMs: SIGNAL_POLL_MS,
    retentionMs: SIGNAL_RETENTION_MS,
  });
  await signals.migrate();
  const definitions = new DefinitionSync({
    config,
    store,
    registry,
    signals,
    log,
    ...(options.configFile !== undefined ? { source: options.configFile } : {}),
  });
  await definitions.recordStartup();
  const auth = await createAuthComponent(config, store, log, {
    signals,
    definedRoles: () => definedRoles(config, registry.definitions),
    generateAdminToken: true,
    ...(options.redisKeyPrefix !== undefined ? { redisKeyPrefix: options.redisKeyPrefix } : {}),
    ...(options.announceAdminToken !== undefined ? { announceAdminToken: options.announceAdminToken } : {}),
  });
  await auth.migrate();
  await createOutboxTable(store.db, store.dialect);
  await createIdempotencyTable(store.db);
  const idempotency = new IdempotencyStore(store.db, store.dialect, config.idempotency ?? IDEMPOTENCY_DEFAULTS);
  const records = new RecordService(store, registry, log, includeBounds(config.server));
  const events = await createEventHub({ config, store, registry, records, log });
  // The identity component's secret (resolved again: on SQLite it is the file the component just read).
  const serviceSecret = resolveIdentitySecret(config, store);
  const secrets = webhookSecretBox(serviceSecret, previousServiceSecret());
  const files = new FileService({
    storage: createFileStorage(config),
    serviceSecret,
    urlTtlSeconds: (config.files ?? FILES_DEFAULTS).urlTtlSeconds,
    resourceNamed: (name) => registry.find(name),
    warn: (message, error) => log.warn({ err: error }, message),
  });
  // Only the node that committed a change removes what it let go of; a crash in between leaves orphans
  // for the sweeper.
  records.onCommitted((events) => void files.afterCommit(events));
  const webhooks = await createWebhookService({ config, store, registry, records, signals, log, secrets });
  const resourceNames = () => registry.all().map((resource) => resource.name);
  const streams = createStreamRegistry({ settings: config.stream, auth, resources: registry, log });
  const metrics = createServiceMetrics({
    outboxReader: outboxReaderProbe(events, store.db),
    deliveryQueue: () => deliveryQueueState(store),
    prunedRows: { tables: RETENTION_TABLES, totals: () => prunedRows(store) },
    streamFlushes,
    resources: resourceNames,
  });
  const retention = new RetentionJob({
    store,
    settings: config.retention ?? RETENTION_DEFAULTS,
    replayWindow: config.stream.replayWindow,
    idempotencyTtlMs: idempotency.settings.ttlMs,
    resources: resourceNames,
    log,
    pruneConsoleKeys: (batchSize) => auth.keys.pruneConsoleKeys(batchSize),
    sweepFiles: () => sweepOrphanedFiles(store, registry, files),
  });
  const hooks = new HookRunner({
    records,
    registry,
    log,
    timeoutMs: config.server.hookTimeoutMs ?? SERVER_LIMIT_DEFAULTS.hookTimeoutMs,
    likeLimits: likePatternLimits(config.server),
    failures: metrics.registry.counter<'hook' | 'resource'>({
      name: 'svc_hook_failures_total',
      help: 'Hooks that threw (not a refusal) or ran out of time, by hook and by the resource they were defined for (* for every resource).',
      labelNames: ['hook', 'resource'],
    }),
  });
  try {
    if (options.hooks !== undefined) {
      hooks.replace(hooks.compile(options.hooks));
    } else {
      const configured = await loadConfiguredHooks(hooks, config, options.configFile);
      if (configured) {
        hooks.replace(configured.set);
        log.info({ file: configured.file }, 'hooks loaded');
      }
    }
  } catch (error) {
    // A hooks file that does not load ends the start, as an invalid config does.
    metrics.close();
    streams.stopListening();
    await webhooks.close();
    await events.close();
    await signals.close();
    await auth.close();
    if (ownsStore) await store.close();
    throw error;
  }
  const context: AppContext = {
    config,
    store,
    registry,
    auth,
    records,
    events,
    webhooks,
    signals,
    definitions,
    streams: streams.registry,
    metrics,
    idempotency,
    hooks,
    files,
    log,
  };

  let stopping: Promise<void> | undefined;
  let closing: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      await retention.stop();
      await signals.close();
      // Closing the hub ends the streams reading from it.
      await events.close();
      await webhooks.close();
    })());
  return {
    context,
    async start() {
      await signals.start();
      await events.start();
      await webhooks.start();
      retention.start();
    },
    stop,
    close: () =>
      (closing ??= (async () => {
        await stop();
        await auth.close();
        await files.close();
        if (ownsStore) await store.close();
        streams.stopListening();
        metrics.close();
      })()),
  };
}

/** The retention pass over storage: orphans older than the grace period go (nothing to do without file fields). */
async function sweepOrphanedFiles(
  store: Pick<Store, 'db' | 'dialect'>,
  registry: ResourceRegistry,
  files: FileService,
): Promise<number> {
  const resources = registry.all();
  if (!resources.some((resource) => resource.fileFields.length > 0)) return 0;
  const audit = await auditStorage(files.storage, await referencedFiles(store, resources), {
    graceMs: ORPHAN_GRACE_MS,
  });
  // A crash mid-upload leaves the local driver's partial file, which no listing shows.
  const stale = (await files.storage.removeStaleWrites?.(new Date(Date.now() - ORPHAN_GRACE_MS))) ?? 0;
  return stale + (await repairStorage(files.storage, { ...audit, unmoved: [] }));
}

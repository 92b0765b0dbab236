// Builds the event hub for the deployment: Redis pub/sub when `redis.url` is set, else the database's
// own signal at commit where it has one (store/commit-signal.ts), else the outbox poll alone.
import type { FastifyBaseLogger } from 'fastify';
import type { SvcConfig } from '../config/config-types.ts';
import type { Store } from '../store/create-store.ts';
import type { ResourceRegistry } from '../resources/resource-registry.ts';
import type { RecordEvent } from '../model/record-event.ts';
import type { EventHub } from './event-hub.ts';
import type { ChangeNotifier } from './change-notifier.ts';
import { OutboxEventHub } from './outbox-event-hub.ts';
import { RedisNotifier } from './redis-notifier.ts';
import { RETENTION_DEFAULTS } from '../config/config-schema.ts';

/** Fallback outbox read; the notifier normally wakes readers at once. */
export const OUTBOX_POLL_INTERVAL_MS = 1000;
/** How long a `seq` that committed out of order (a server database's sequence) is waited for. */
export const OUTBOX_GAP_GRACE_MS = 30_000;
/**
 * Outbox retention is the retention job's (src/retention/, `retention` config: age, count, batches): the
 * hub's own pass would only repeat its age rule, so its timer is set as far off as a timer goes.
 */
export const OUTBOX_PRUNE_INTERVAL_MS = 2_147_483_647;

/** Where committed changes are announced (the record service): the hub only listens, so events/ stays below records/. */
export interface CommittedChanges {
  onCommitted(listener: (events: RecordEvent[]) => void): void;
}

/** What the event hub is built from. */
export interface EventHubDeps {
  readonly config: SvcConfig;
  readonly store: Store;
  readonly registry: ResourceRegistry;
  readonly records: CommittedChanges;
  readonly log: FastifyBaseLogger;
}

export async function createEventHub(deps: EventHubDeps): Promise<EventHub> {
  const { config, store, registry, records, log } = deps;
  const redisUrl = config.redis?.url;
  let notifier: ChangeNotifier | null = null;
  let redis: RedisNotifier | null = null;
  if (redisUrl) {
    redis = new RedisNotifier(redisUrl, log);
    notifier = redis;
  } else {
    // Sent by the writing transaction, so the other processes are woken exactly when it commits.
    notifier = store.commitSignal.listen(log) ?? null;
  }
  const hub = new OutboxEventHub({
    db: store.db,
    log,
    replayWindow: config.stream.replayWindow,
    resources: () => registry.all().map((resource) => resource.name),
    notifier,
    pollIntervalMs: OUTBOX_POLL_INTERVAL_MS,
    gapGraceMs: OUTBOX_GAP_GRACE_MS,
    pruneIntervalMs: OUTBOX_PRUNE_INTERVAL_MS,
    retentionMs: (config.retention ?? RETENTION_DEFAULTS).events.maxAgeMs,
  });
  records.onCommitted((events) => {
    hub.publishLocal(events);
    redis?.announce();
  });
  return hub;
}

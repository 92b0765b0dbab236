// The components of a running service (runtime.ts builds them once): config, database, compiled
// resources, auth, events, webhooks, streams, metrics. The HTTP layer reads what it needs from it.
import type { FastifyBaseLogger } from 'fastify';
import type { SvcConfig } from './config/config-types.ts';
import type { Store } from './store/create-store.ts';
import type { ResourceRegistry } from './resources/resource-registry.ts';
import type { AuthComponent } from './auth/auth-component.ts';
import type { RecordService } from './records/record-service.ts';
import type { EventHub } from './events/event-hub.ts';
import type { WebhookService } from './webhooks/webhook-service.ts';
import type { ClusterSignals } from './cluster/cluster-signals.ts';
import type { DefinitionSync } from './cluster/definition-sync.ts';
import type { StreamRegistry } from './stream/stream-registry.ts';
import type { ServiceMetrics } from './metrics/service-metrics.ts';
import type { IdempotencyStore } from './idempotency/idempotency-store.ts';
import type { HookRunner } from './hooks/hook-runner.ts';
import type { FileService } from './files/file-service.ts';

export interface AppContext {
  readonly config: SvcConfig;
  readonly store: Store;
  readonly registry: ResourceRegistry;
  readonly auth: AuthComponent;
  readonly records: RecordService;
  readonly events: EventHub;
  readonly webhooks: WebhookService;
  /** Changes told to (and by) the other processes on the same database. */
  readonly signals: ClusterSignals;
  /** Applies reloaded resource definitions here and adopts other nodes'. */
  readonly definitions: DefinitionSync;
  /** The streams open on this node, ended when their right to read goes. */
  readonly streams: StreamRegistry;
  readonly metrics: ServiceMetrics;
  /** Idempotency-Keys and the answers kept for retries. */
  readonly idempotency: IdempotencyStore;
  /** The application's hooks and custom routes (docs/hooks.md), replaced by a reload. */
  readonly hooks: HookRunner;
  /** File fields: uploads, their storage, signed download URLs. */
  readonly files: FileService;
  readonly log: FastifyBaseLogger;
}

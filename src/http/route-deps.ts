// The parts of the running service the HTTP layer reads, one small interface per part: each hook and
// route names only the parts it uses (an intersection of these), and the runtime's context has them all.
// HTTP depends on the components, never the other way round.
import type { FastifyBaseLogger } from 'fastify';
import type { SvcConfig } from '../config/config-types.ts';
import type { Store } from '../store/create-store.ts';
import type { ResourceRegistry } from '../resources/resource-registry.ts';
import type { AuthComponent } from '../auth/auth-component.ts';
import type { RecordService } from '../records/record-service.ts';
import type { EventHub } from '../events/event-hub.ts';
import type { WebhookService } from '../webhooks/webhook-service.ts';
import type { DefinitionSync } from '../cluster/definition-sync.ts';
import type { StreamRegistry } from '../stream/stream-registry.ts';
import type { ServiceMetrics } from '../metrics/service-metrics.ts';
import type { IdempotencyStore } from '../idempotency/idempotency-store.ts';
import type { HookRunner } from '../hooks/hook-runner.ts';

export interface ConfigDep {
  readonly config: SvcConfig;
}

export interface StoreDep {
  readonly store: Store;
}

export interface RegistryDep {
  readonly registry: ResourceRegistry;
}

export interface AuthDep {
  readonly auth: AuthComponent;
}

export interface RecordsDep {
  readonly records: RecordService;
}

export interface EventsDep {
  readonly events: EventHub;
}

export interface WebhooksDep {
  readonly webhooks: WebhookService;
}

export interface DefinitionsDep {
  readonly definitions: DefinitionSync;
}

export interface StreamsDep {
  readonly streams: StreamRegistry;
}

export interface MetricsDep {
  readonly metrics: ServiceMetrics;
}

export interface IdempotencyDep {
  readonly idempotency: IdempotencyStore;
}

export interface LogDep {
  readonly log: FastifyBaseLogger;
}

export interface HooksDep {
  readonly hooks: HookRunner;
}

// Everything a route needs, built once per app: config, database, compiled resources, auth.
import type { FastifyBaseLogger } from 'fastify';
import type { SvcConfig } from './config/config-types.ts';
import type { Store } from './store/create-store.ts';
import type { ResourceRegistry } from './resources/resource-registry.ts';
import type { AuthComponent } from './auth/auth-component.ts';
import type { RecordService } from './records/record-service.ts';
import type { EventHub } from './events/event-hub.ts';
import type { WebhookService } from './webhooks/webhook-service.ts';

export interface AppContext {
  readonly config: SvcConfig;
  readonly store: Store;
  readonly registry: ResourceRegistry;
  readonly auth: AuthComponent;
  readonly records: RecordService;
  readonly events: EventHub;
  readonly webhooks: WebhookService;
  readonly log: FastifyBaseLogger;
}

/** What the background components (event hub, webhook service) are built from. */
export interface ComponentDeps {
  readonly config: SvcConfig;
  readonly store: Store;
  readonly registry: ResourceRegistry;
  readonly records: RecordService;
  readonly log: FastifyBaseLogger;
}

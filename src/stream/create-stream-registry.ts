// The node's stream registry as the service runs it: the configured bounds, keys re-checked through the
// auth component, every access change it announces (local or from another node) heard, and a full
// garbage collection after a burst of closed streams (stream-exodus.ts).
import type { FastifyBaseLogger } from 'fastify';
import type { SvcConfig } from '../config/config-types.ts';
import type { AuthComponent } from '../auth/auth-component.ts';
import type { ResourceRegistry } from '../resources/resource-registry.ts';
import { DEFAULT_MAX_STREAMS_PER_KEY, DEFAULT_MAX_STREAMS_PER_NODE, StreamRegistry } from './stream-registry.ts';
import { StreamExodus } from './stream-exodus.ts';
import { collectAllGarbage } from '../tools/collect-garbage.ts';

export interface StreamRegistryDeps {
  readonly settings: SvcConfig['stream'];
  readonly auth: AuthComponent;
  /** The resource definitions: a replacement that narrows a stream's reading ends the stream. */
  readonly resources: ResourceRegistry;
  readonly log: FastifyBaseLogger;
}

export interface ListeningStreamRegistry {
  readonly registry: StreamRegistry;
  /** Stops hearing access changes (at shutdown). */
  stopListening(): void;
}

export function createStreamRegistry({ settings, auth, resources, log }: StreamRegistryDeps): ListeningStreamRegistry {
  const exodus = new StreamExodus(collectAllGarbage);
  const registry = new StreamRegistry({
    maxPerKey: settings.maxPerKey ?? DEFAULT_MAX_STREAMS_PER_KEY,
    maxPerNode: settings.maxPerNode ?? DEFAULT_MAX_STREAMS_PER_NODE,
    // Places free up as clients leave, which cannot be foreseen: about one reconnection delay.
    retryAfterSeconds: Math.max(1, Math.ceil(settings.retryMs / 1000)),
    stillValid: (slot) =>
      slot.principal.kind === 'key' ? auth.stillValid(slot.principal, slot.requestedRole) : Promise.resolve(true),
    onCheckError: (error) => log.warn({ err: error }, 'could not re-check a stream key; the stream is ended'),
    onReleased: () => exodus.closed(),
  });
  const stopAccess = auth.onAccessChanged((change) => registry.changed(change));
  const stopDefinitions = resources.onReplaced(() => registry.definitionsReplaced((name) => resources.find(name)));
  return {
    registry,
    stopListening: () => {
      stopAccess();
      stopDefinitions();
      exodus.stop();
    },
  };
}

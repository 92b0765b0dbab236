// Keeps every node's resources equal to what was last applied to the shared database. A node applies a
// config (at start, or on SIGHUP): it extends the tables, records the definitions and tells the others,
// which adopt them without touching the schema. "Last applied wins": a node started later with an older
// file applies that older file (never destructively unless allowed) and the others follow it.
import type { FastifyBaseLogger } from 'fastify';
import type { SvcConfig } from '../config/config-types.ts';
import { ResourceRegistry, type ResourceDefinitions } from '../resources/resource-registry.ts';
import { applyResourceSchema } from './resource-schema.ts';
import type { Store } from '../store/create-store.ts';
import type { ClusterSignals } from './cluster-signals.ts';
import {
  appliedRecord,
  createDefinitionsTable,
  latestDefinitions,
  recordAppliedDefinitions,
  type AppliedRecord,
} from './definitions-store.ts';
import { validateConfig } from '../resources/config-loader.ts';

export const DEFINITIONS_TOPIC = 'resources';

export interface DefinitionSyncDeps {
  config: SvcConfig;
  store: Store;
  registry: ResourceRegistry;
  signals: ClusterSignals;
  log: FastifyBaseLogger;
  /** The config file the definitions were read from (recorded with them); absent when there is none. */
  source?: string;
}

export class DefinitionSync {
  readonly #deps: DefinitionSyncDeps;
  /** One change at a time: a reload and an adoption must not interleave. */
  #queue: Promise<unknown> = Promise.resolve();
  /**
   * The version adopted from another node, whose record is found by version: this node validated it
   * again (defaults filled by its own svc), so its hash may not be the recorded one. Null: found by hash.
   */
  #adopted: number | null = null;

  /** The config file this node's definitions came from; undefined when it was built from an object. */
  get source(): string | undefined {
    return this.#deps.source;
  }

  constructor(deps: DefinitionSyncDeps) {
    this.#deps = deps;
    deps.signals.on(DEFINITIONS_TOPIC, async () => {
      await this.adoptLatest();
    });
  }

  /** At start, after the schema was applied from this node's config: record it and tell the others. */
  async recordStartup(): Promise<void> {
    const { store, registry, signals } = this.#deps;
    await createDefinitionsTable(store.db, store.dialect);
    if (await recordAppliedDefinitions(store.db, registry.definitions, this.#deps.source ?? null))
      await signals.publish(DEFINITIONS_TOPIC, { hash: registry.hash });
  }

  /** When and from which file the definitions this node serves were applied (by any node); null if unrecorded. */
  applied(): Promise<AppliedRecord | null> {
    return appliedRecord(
      this.#deps.store.db,
      this.#adopted !== null ? { version: this.#adopted } : { hash: this.#deps.registry.hash },
    );
  }

  /**
   * Applies new definitions from this node (a reloaded config file): extends the schema, swaps the
   * resources, records them and tells the other nodes. A destructive change is refused (the error says
   * which) and nothing changes; restart with --allow-destructive for that.
   */
  apply(definitions: ResourceDefinitions, source: string | null = this.#deps.source ?? null): Promise<boolean> {
    return this.#serial(async () => {
      const { store, registry, signals, log } = this.#deps;
      const next = new ResourceRegistry({ resources: definitions });
      if (next.hash === registry.hash) return false;
      await applyResourceSchema(store, next, { allowDestructive: false });
      // Recorded before they are served: a reader who sees the new definitions finds when and from which
      // file they were applied (applied() looks the record up by the hash in force).
      const recorded = await recordAppliedDefinitions(store.db, definitions, source);
      registry.replace(definitions);
      this.#adopted = null;
      if (recorded) await signals.publish(DEFINITIONS_TOPIC, { hash: registry.hash });
      log.info({ resources: Object.keys(definitions) }, 'resource definitions applied');
      return true;
    });
  }

  /** Takes the definitions another node applied, when they differ from ours. */
  adoptLatest(): Promise<boolean> {
    return this.#serial(async () => {
      const { store, registry, log } = this.#deps;
      const latest = await latestDefinitions(store.db);
      if (!latest || latest.hash === registry.hash) return false;
      // The other node validated them, but it may run another version of svc: check before serving.
      const { config, problems } = validateConfig({ ...this.#deps.config, resources: latest.definitions });
      if (!config) {
        log.error(
          { version: latest.version, problems },
          'resource definitions applied by another node are not valid here; keeping the current ones',
        );
        return false;
      }
      registry.replace(config.resources);
      this.#adopted = latest.version;
      log.info(
        { version: latest.version, resources: Object.keys(config.resources) },
        'resource definitions changed by another node adopted',
      );
      return true;
    });
  }

  #serial<T>(run: () => Promise<T>): Promise<T> {
    const result = this.#queue.then(run, run);
    this.#queue = result.catch(() => {});
    return result;
  }
}

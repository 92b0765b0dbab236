// The retention job every node runs: on an interval, it prunes the event outbox and the webhook delivery
// records by the `retention` settings, Idempotency-Keys past `idempotency.ttlMs`, the web console's
// keys that stopped working (unused too long, or past their expiry), and file objects no record
// references (storage-audit.ts). Passes never
// overlap within a process; nodes on one database may prune side by side (each batch skips the rows
// another is deleting).
import type { FastifyBaseLogger } from 'fastify';
import type { RetentionConfig } from '../config/config-types.ts';
import type { Store } from '../store/create-store.ts';
import { EVENTS_TABLE } from '../events/outbox.ts';
import { pruneOutbox } from '../events/outbox-pruner.ts';
import { DELIVERIES_TABLE } from '../webhooks/webhook-tables.ts';
import { pruneDeliveries } from '../webhooks/delivery/delivery-retention.ts';
import { recordPruned } from './pruned-rows.ts';
import { IDEMPOTENCY_TABLE } from '../idempotency/idempotency-table.ts';
import { pruneIdempotencyKeys } from '../idempotency/idempotency-pruner.ts';
import { IDEMPOTENCY_DEFAULTS } from '../config/idempotency-settings.ts';

export interface RetentionJobOptions {
  store: Store;
  settings: RetentionConfig;
  /** `stream.replayWindow`: the events per resource that stay replayable. */
  replayWindow: number;
  /** `idempotency.ttlMs`: Idempotency-Keys older than this go (default IDEMPOTENCY_DEFAULTS). */
  idempotencyTtlMs?: number;
  /** Configured resource names, read at each pass (definitions can be reloaded). */
  resources: () => readonly string[];
  log: FastifyBaseLogger;
  /** Deletes console keys that stopped working, `batchSize` at a time; answers how many (the auth component's). */
  pruneConsoleKeys?: (batchSize: number) => Promise<number>;
  /** Removes file objects no record references (a crash's leftovers); answers how many went. */
  sweepFiles?: () => Promise<number>;
}

/** Rows one pass deleted. */
export interface RetentionPass {
  events: number;
  deliveries: number;
  idempotencyKeys: number;
  consoleKeys: number;
  /** Orphaned file objects removed. */
  files: number;
}

export class RetentionJob {
  readonly #options: RetentionJobOptions;
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<RetentionPass> | undefined;
  #stopped = false;

  constructor(options: RetentionJobOptions) {
    this.#options = options;
  }

  /** Runs a pass every `intervalMs`, the first one interval after the start (a start is busy enough). */
  start(): void {
    if (this.#timer !== undefined || this.#stopped) return;
    this.#timer = setInterval(() => void this.run(), this.#options.settings.intervalMs);
    // Background work must not keep a process alive on its own.
    this.#timer.unref();
  }

  /** One pass now; a pass already running is joined rather than doubled. */
  run(): Promise<RetentionPass> {
    this.#running ??= this.#pass().finally(() => {
      this.#running = undefined;
    });
    return this.#running;
  }

  /** No pass starts after this; a running one ends after its current batch. */
  async stop(): Promise<void> {
    this.#stopped = true;
    clearInterval(this.#timer);
    await this.#running;
  }

  async #pass(): Promise<RetentionPass> {
    const { store, settings, replayWindow, resources } = this.#options;
    const batches = (table: string) => ({
      batchSize: settings.batchSize,
      stopped: () => this.#stopped,
      onDeleted: (rows: number) => recordPruned(store, table, rows),
    });
    const events = await this.#prune(EVENTS_TABLE, () =>
      pruneOutbox(store.db, {
        ...batches(EVENTS_TABLE),
        ...settings.events,
        resources: resources(),
        replayWindow,
        skipLocked: store.dialect.supportsSkipLocked,
      }),
    );
    const deliveries = await this.#prune(DELIVERIES_TABLE, () =>
      pruneDeliveries(store, { ...batches(DELIVERIES_TABLE), ...settings.deliveries }),
    );
    const ttlMs = this.#options.idempotencyTtlMs ?? IDEMPOTENCY_DEFAULTS.ttlMs;
    const idempotencyKeys = await this.#prune(IDEMPOTENCY_TABLE, () =>
      pruneIdempotencyKeys(store, { ...batches(IDEMPOTENCY_TABLE), ttlMs }),
    );
    const { pruneConsoleKeys, sweepFiles } = this.#options;
    const consoleKeys = pruneConsoleKeys
      ? await this.#prune('svc_api_keys', () => pruneConsoleKeys(settings.batchSize))
      : 0;
    const files = sweepFiles ? await this.#prune('files', sweepFiles) : 0;
    return { events, deliveries, idempotencyKeys, consoleKeys, files };
  }

  /** A failure is logged and retried at the next pass; it does not stop the other table's pruning. */
  async #prune(table: string, prune: () => Promise<number>): Promise<number> {
    if (this.#stopped) return 0;
    try {
      const rows = await prune();
      if (rows > 0) this.#options.log.debug({ table, rows }, 'retention pruned old rows');
      return rows;
    } catch (error) {
      this.#options.log.warn({ err: error, table }, 'retention pruning failed');
      return 0;
    }
  }
}

// API keys for the admin API: list, read, change, delete. Reads add the requests counted in memory
// but not yet flushed, so an administrator sees exact totals.
import { ApiError } from '../../errors/api-error.ts';
import type { ApiKeyChanges, ApiKeyRepository } from './api-key-repository.ts';
import type { ApiKeyRecord } from './api-key-record.ts';
import type { UsageRecorder } from './usage-recorder.ts';
import { CONSOLE_KEY_IDLE_MS } from './console-key.ts';

export interface KeyListQuery {
  userId?: string;
  includeConsole?: boolean;
  limit: number;
  offset: number;
}

export class KeyDirectory {
  readonly #keys: ApiKeyRepository;
  readonly #usage: UsageRecorder;
  readonly #keyChanged: (keyId: string) => void | Promise<void>;

  constructor(keys: ApiKeyRepository, usage: UsageRecorder, keyChanged: (keyId: string) => void | Promise<void>) {
    this.#keys = keys;
    this.#usage = usage;
    this.#keyChanged = keyChanged;
  }

  async list(query: KeyListQuery): Promise<{ keys: ApiKeyRecord[]; total: number }> {
    const { keys, total } = await this.#usage.readSettled(() => this.#keys.list(query));
    return { keys: keys.map((key) => this.#withPending(key)), total };
  }

  async get(id: string): Promise<ApiKeyRecord | undefined> {
    const key = await this.#usage.readSettled(() => this.#keys.findById(id));
    return key ? this.#withPending(key) : undefined;
  }

  async update(id: string, changes: ApiKeyChanges, now = new Date()): Promise<ApiKeyRecord | undefined> {
    const current = await this.#keys.findById(id);
    if (!current) return undefined;
    const interval = changes.refillInterval === undefined ? current.refillInterval : changes.refillInterval;
    const amount = changes.refillAmount === undefined ? current.refillAmount : changes.refillAmount;
    if ((interval === null) !== (amount === null)) {
      throw new ApiError('INVALID_RESOURCE_DATA', {
        detail: 'refillInterval and refillAmount must be set together (or both cleared)',
        field: interval === null ? 'refillInterval' : 'refillAmount',
      });
    }
    const updated = await this.#keys.update(id, changes, now);
    await this.#keyChanged(id);
    // Read again for its counters: a flush may have overlapped the update.
    return updated ? ((await this.get(id)) ?? this.#withPending(updated)) : undefined;
  }

  /**
   * Deletes the console keys that stopped working (console-key.ts), in batches of `batchSize`, each with
   * the notice a revoke sends (caches, other nodes, open streams). Answers how many went.
   */
  async pruneConsoleKeys(batchSize: number, now = new Date()): Promise<number> {
    let pruned = 0;
    // Bounded: each pass deletes what it found, so the next finds only newer idle keys; a busy table
    // waits for the next run rather than holding the job.
    for (let pass = 0; pass < 10; pass++) {
      const ids = await this.#keys.idleConsoleKeys(now, CONSOLE_KEY_IDLE_MS, batchSize);
      for (const id of ids) if (await this.delete(id)) pruned += 1;
      if (ids.length < batchSize) break;
    }
    return pruned;
  }

  async delete(id: string): Promise<boolean> {
    const deleted = await this.#keys.delete(id);
    if (deleted) await this.#keyChanged(id);
    return deleted;
  }

  #withPending(key: ApiKeyRecord): ApiKeyRecord {
    const pending = this.#usage.pendingFor(key.id);
    if (!pending) return key;
    const lastRequest = pending.lastRequest.toISOString();
    return {
      ...key,
      requestCount: key.requestCount + pending.count,
      lastRequest: key.lastRequest !== null && key.lastRequest > lastRequest ? key.lastRequest : lastRequest,
    };
  }
}

// Keys and their owners' roles, cached in memory by key hash for a few seconds so an authenticated
// request costs no database read. Admin changes invalidate entries at once in this process; other
// processes see them when the short TTL runs out.

export interface CachedKeyOwner {
  primaryRole: string;
  allowedRoles: readonly string[];
}

export interface CachedKey<K extends { id: string; userId: string }> {
  key: K;
  /** Null when the owner no longer exists. */
  owner: CachedKeyOwner | null;
}

interface Entry<V> {
  value: V | null;
  expiresAt: number;
}

export interface KeyCacheOptions {
  ttlMs: number;
  /** Unknown hashes are cached too (an attacker's guesses must not each cost a query), so bound the map. */
  maxEntries: number;
}

export class KeyCache<K extends { id: string; userId: string }> {
  readonly #entries = new Map<string, Entry<CachedKey<K>>>();
  readonly #loading = new Map<string, Promise<CachedKey<K> | null>>();
  readonly #options: KeyCacheOptions;
  readonly #load: (hash: string) => Promise<CachedKey<K> | null>;
  /** Bumped by every invalidation, so a load that started before it does not store stale data. */
  #generation = 0;

  constructor(load: (hash: string) => Promise<CachedKey<K> | null>, options: KeyCacheOptions) {
    this.#load = load;
    this.#options = options;
  }

  /** The entry while it is fresh (null: known not to exist), undefined when it must be loaded. */
  peek(hash: string, now = Date.now()): CachedKey<K> | null | undefined {
    const entry = this.#entries.get(hash);
    return entry && entry.expiresAt > now ? entry.value : undefined;
  }

  async get(hash: string, now = Date.now()): Promise<CachedKey<K> | null> {
    const fresh = this.peek(hash, now);
    if (fresh !== undefined) return fresh;
    // Concurrent misses for one key share a single query.
    let pending = this.#loading.get(hash);
    if (!pending) {
      pending = this.#fetch(hash);
      this.#loading.set(hash, pending);
    }
    return pending;
  }

  async #fetch(hash: string): Promise<CachedKey<K> | null> {
    const generation = this.#generation;
    try {
      const value = await this.#load(hash);
      if (generation === this.#generation) this.#store(hash, value);
      return value;
    } finally {
      this.#loading.delete(hash);
    }
  }

  #store(hash: string, value: CachedKey<K> | null): void {
    this.#entries.delete(hash);
    if (this.#entries.size >= this.#options.maxEntries) {
      // Maps iterate in insertion order: drop the oldest entry.
      const oldest = this.#entries.keys().next();
      if (!oldest.done) this.#entries.delete(oldest.value);
    }
    this.#entries.set(hash, { value, expiresAt: Date.now() + this.#options.ttlMs });
  }

  invalidateKey(keyId: string): void {
    this.#invalidateWhere((cached) => cached.key.id === keyId);
  }

  invalidateUser(userId: string): void {
    this.#invalidateWhere((cached) => cached.key.userId === userId);
  }

  clear(): void {
    this.#generation++;
    this.#entries.clear();
  }

  #invalidateWhere(matches: (cached: CachedKey<K>) => boolean): void {
    this.#generation++;
    for (const [hash, entry] of this.#entries) {
      if (entry.value && matches(entry.value)) this.#entries.delete(hash);
    }
  }
}

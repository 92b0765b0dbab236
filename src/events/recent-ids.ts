// A bounded memory of recently seen event ids, so an event reaching a process twice (its own commit
// and the outbox tail) is delivered once. Ids are kept for at least `retainMs`, at most `maxSize` of them.

export class RecentIds {
  readonly #seen = new Map<string, number>();
  readonly #retainMs: number;
  readonly #maxSize: number;

  constructor(options: { retainMs: number; maxSize: number }) {
    this.#retainMs = options.retainMs;
    this.#maxSize = options.maxSize;
  }

  /** Records `id`; false when it was already there. */
  add(id: string, now = Date.now()): boolean {
    if (this.#seen.has(id)) return false;
    this.#seen.set(id, now);
    // Insertion order is age order, so the oldest are at the front.
    for (const [oldest, at] of this.#seen) {
      if (this.#seen.size <= this.#maxSize && now - at <= this.#retainMs) break;
      this.#seen.delete(oldest);
    }
    return true;
  }

  /** Forgets `id`; false when it was not remembered. */
  delete(id: string): boolean {
    return this.#seen.delete(id);
  }

  /** Whether `id` is remembered (without recording it). */
  has(id: string): boolean {
    return this.#seen.has(id);
  }

  get size(): number {
    return this.#seen.size;
  }
}

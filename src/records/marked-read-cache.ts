// Reads reused while nothing can have changed them: a result is kept with a mark read before it ran
// (this process's resource writes, and StoreDialect.changeMark for other connections) and reused only
// while the mark is the same, so a reused result is the one the query would return now. Concurrent
// requests for the same read under the same mark share one run.
import type { Db, StoreDialect } from '../store/store-dialect.ts';
import { resourceWriteGeneration } from './write-generation.ts';

export interface MarkedReadCacheOptions<T> {
  /** Entries kept; when full, the cache starts again empty. */
  maxEntries: number;
  /** How much an entry costs against `maxWeight` (e.g. its rows); 1 each by default. */
  weigh?: (value: T) => number;
  maxWeight?: number;
}

export class MarkedReadCache<T> {
  readonly #entries = new Map<string, { mark: string; value: T; weight: number }>();
  readonly #reading = new Map<string, Promise<T>>();
  readonly #options: MarkedReadCacheOptions<T>;
  #weight = 0;

  constructor(options: MarkedReadCacheOptions<T>) {
    this.#options = options;
  }

  /**
   * The result of `read`, from the cache while the mark under `key` is unchanged. No key: always read.
   * `read` is given the mark it runs under, so a read that itself uses this kind of cache (a page
   * and its count) can pass it on as `known` instead of reading it again: on PostgreSQL reading the
   * mark is a round trip. A known mark must have been read before the read it guards.
   */
  async get(
    db: Db,
    dialect: StoreDialect,
    key: string | undefined,
    read: (mark?: string) => Promise<T>,
    known?: string,
  ): Promise<T> {
    if (key === undefined) return read(known);
    // Read before running: a change that lands in between makes the stored mark older, never newer.
    const mark = known ?? (await readMark(db, dialect));
    const cached = this.#entries.get(key);
    if (cached && cached.mark === mark) return cached.value;
    const flight = `${mark}\u0000${key}`;
    let reading = this.#reading.get(flight);
    if (!reading) {
      reading = read(mark).finally(() => this.#reading.delete(flight));
      this.#reading.set(flight, reading);
    }
    const value = await reading;
    this.#store(key, mark, value);
    return value;
  }

  #store(key: string, mark: string, value: T): void {
    const { maxEntries, weigh, maxWeight = Infinity } = this.#options;
    const weight = weigh ? weigh(value) : 1;
    if (weight > maxWeight) return;
    const previous = this.#entries.get(key);
    if (previous) this.#weight -= previous.weight;
    else if (this.#entries.size >= maxEntries || this.#weight + weight > maxWeight) this.clear();
    this.#entries.set(key, { mark, value, weight });
    this.#weight += weight;
  }

  clear(): void {
    this.#entries.clear();
    this.#weight = 0;
  }
}

/** This process's resource writes and the database's own mark for everything else (StoreDialect.changeMark). */
async function readMark(db: Db, dialect: StoreDialect): Promise<string> {
  const generation = resourceWriteGeneration(db);
  return `${generation}/${await dialect.changeMark(db)}`;
}

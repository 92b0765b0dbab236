// meta.total without counting again when nothing can have changed: a count is kept with a mark read
// before it ran (this process's resource writes, and StoreDialect.changeMark for other connections) and
// reused only while the mark is the same, so a reused total is the one a fresh count(*) would give.
import type { CompiledQuery } from 'kysely';
import type { Db, StoreDialect } from '../store/store-dialect.ts';
import { resourceWriteGeneration } from './resource-writes.ts';

const MAX_ENTRIES = 1000;

export class CountCache {
  readonly #entries = new Map<string, { mark: string; total: number }>();
  /** Counts under way, by mark and query: concurrent requests for the same total share one count. */
  readonly #counting = new Map<string, Promise<number>>();

  /** The count of a `select count(*) as total …` query, from the cache when still valid. */
  async total(db: Db, dialect: StoreDialect, query: CompiledQuery<{ total: unknown }>): Promise<number> {
    const key = keyOf(query);
    // Read before counting: a change that lands in between makes the stored mark older, never newer.
    const mark = `${resourceWriteGeneration(db)}/${await dialect.changeMark(db)}`;
    const cached = key === undefined ? undefined : this.#entries.get(key);
    if (cached && cached.mark === mark) return cached.total;
    if (key === undefined) return count(db, query);
    const flight = `${mark}\u0000${key}`;
    let counting = this.#counting.get(flight);
    if (!counting) {
      counting = count(db, query).finally(() => this.#counting.delete(flight));
      this.#counting.set(flight, counting);
    }
    const total = await counting;
    if (this.#entries.size >= MAX_ENTRIES && !this.#entries.has(key)) this.#entries.clear();
    this.#entries.set(key, { mark, total });
    return total;
  }
}

async function count(db: Db, query: CompiledQuery<{ total: unknown }>): Promise<number> {
  const { rows } = await db.executeQuery(query);
  return Number(rows[0]?.total ?? 0);
}

function keyOf(query: CompiledQuery): string | undefined {
  try {
    return `${query.sql}\u0000${JSON.stringify(query.parameters)}`;
  } catch {
    return undefined; // a parameter JSON cannot hold (bigint): just count
  }
}

// What meta.total costs: the filter+sort scenario's count(*) and its page query timed alone, in the
// SQL svc sends for them (the author's read filter, not soft-deleted, published = true).
import { sql } from 'kysely';
import type { SvcConfig } from '../src/config/config-types.ts';
import { createStore } from '../src/store/create-store.ts';

export interface CountCost {
  rows: number;
  countMs: number;
  pageMs: number;
}

const RUNS = 15;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

export async function measureCountCost(config: SvcConfig, userId: string, rows: number): Promise<CountCost> {
  const store = createStore(config.database.url);
  try {
    const yes = store.dialect.encode('boolean', true);
    // As svc writes it: an equality on a boolean is marked common (StoreDialect.common).
    const published = store.dialect.common(sql`"published" = ${yes}`);
    const where = sql`(${published} or "author_id" = ${userId}) and "deleted_at" is null and ${published}`;
    const count = sql`select count(*) as total from "posts" where ${where}`;
    const page = sql`select "id", "created_at", "updated_at", "title", "body", "status", "views", "published", "published_at", "tags", "author_id"
      from "posts" where ${where} order by "views" desc, "id" desc limit 50 offset 0`;
    const time = async (query: typeof count) => {
      const times: number[] = [];
      for (let i = 0; i < RUNS; i++) {
        const started = performance.now();
        await query.execute(store.db);
        times.push(performance.now() - started);
      }
      return median(times);
    };
    return { rows, countMs: await time(count), pageMs: await time(page) };
  } finally {
    await store.close();
  }
}

// What a keyset page costs at depth: the page right after a cursor deep in the list (90% of the rows)
// against one right after a cursor at its start, through svc's HTTP API, in three orders: the default
// (by id), `-views` and `title` (between them, the case where each database's empty values follow the
// cursor: SQLite descending, PostgreSQL ascending). Every request names another cursor, so no page is
// served from svc's page cache; requests alternate first/deep so a noisy neighbour hits both alike.
import { sql } from 'kysely';
import type { SvcConfig } from '../src/config/config-types.ts';
import { createStore } from '../src/store/create-store.ts';
import { encodeCursor } from '../src/query/keyset-cursor.ts';
import type { SortKey } from '../src/query/list-query.ts';
import { orderKeys } from '../src/query/keyset-order.ts';

export interface KeysetCost {
  rows: number;
  order: string;
  depth: number;
  /** Median milliseconds per page request (HTTP, one at a time). */
  firstMs: number;
  deepMs: number;
}

const REQUESTS = 200;
const ORDERS: { label: string; sort: SortKey[] }[] = [
  { label: 'default (id)', sort: [] },
  { label: '_sort=-views', sort: [{ field: 'views', descending: true }] },
  { label: '_sort=title', sort: [{ field: 'title', descending: false }] },
];

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/** Cursors of the `count` rows from position `from` of the whole table in `sort`'s order. */
async function cursorsAt(config: SvcConfig, sort: SortKey[], from: number, count: number): Promise<string[]> {
  const store = createStore(config.database.url);
  try {
    const order = sql.join(
      orderKeys(sort).map((key) => sql`${sql.ref(key.field)} ${sql.raw(key.descending ? 'desc' : 'asc')}`),
    );
    const rows = await sql<
      Record<string, unknown>
    >`select "id", "views", "title" from "posts" order by ${order} limit ${count} offset ${from}`.execute(store.db);
    return rows.rows.map((row) => encodeCursor(sort, row));
  } finally {
    await store.close();
  }
}

export async function measureKeysetCost(
  config: SvcConfig,
  baseUrl: string,
  authorization: string,
  rows: number,
): Promise<KeysetCost[]> {
  const depth = Math.floor(rows * 0.9);
  const costs: KeysetCost[] = [];
  for (const { label, sort } of ORDERS) {
    const sortParam =
      sort.length === 0 ? '' : `_sort=${sort.map((key) => `${key.descending ? '-' : ''}${key.field}`).join(',')}&`;
    const [first, deep] = [await cursorsAt(config, sort, 0, REQUESTS), await cursorsAt(config, sort, depth, REQUESTS)];
    const time = async (cursor: string) => {
      const started = performance.now();
      const response = await fetch(`${baseUrl}/v1/posts?${sortParam}page[after]=${cursor}&page[limit]=50`, {
        headers: { authorization },
      });
      const body = (await response.json()) as { data?: unknown[] };
      if (response.status !== 200 || body.data?.length !== 50)
        throw new Error(`keyset page ${label}: status ${response.status}, ${JSON.stringify(body).slice(0, 300)}`);
      return performance.now() - started;
    };
    const firstTimes: number[] = [];
    const deepTimes: number[] = [];
    for (let i = 0; i < REQUESTS; i++) {
      firstTimes.push(await time(first[i]!));
      deepTimes.push(await time(deep[i]!));
    }
    // The first tenth warms both up (plans, JIT, the count under its mark): not counted.
    const warm = Math.floor(REQUESTS / 10);
    costs.push({
      rows,
      order: label,
      depth,
      firstMs: median(firstTimes.slice(warm)),
      deepMs: median(deepTimes.slice(warm)),
    });
  }
  return costs;
}

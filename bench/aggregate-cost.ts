// What an aggregate costs against the database's own GROUP BY (the target: at a million rows a
// count by an indexed field within 2x of the same GROUP BY run by hand). On the corpus of
// article-corpus.ts: `GET /v1/articles/aggregate?_group=topic&_count&_sum=words` through svc's HTTP
// handling (inject, a real key, the reader's permissions), against `SELECT topic, count(*), sum(words)
// FROM articles GROUP BY topic` sent through the same connection, alternating so noise hits both alike.
//
//   node --import tsx bench/aggregate-cost.ts [rows] [sqlite|postgres]   (BENCH_DATABASE_URL for postgres)
// `npm run bench` runs it with the search cost, at the same size (`--search-rows N`; 0 skips both).
import { sql } from 'kysely';
import type { BenchDatabase } from './bench-options.ts';
import { MARKERS, median, withArticles } from './article-corpus.ts';

const RUNS = 11;

export interface AggregateCost {
  database: BenchDatabase;
  rows: number;
  aggregateMs: number;
  groupByMs: number;
}

export function measureAggregateCost(
  kind: BenchDatabase,
  rows: number,
  postgresUrl = process.env.BENCH_DATABASE_URL,
): Promise<AggregateCost> {
  return withArticles(kind, rows, postgresUrl, async (app, ctx, authorization) => {
    const table = ctx.registry.require('articles').table;
    const aggregate: number[] = [];
    const groupBy: number[] = [];
    for (let run = 0; run < RUNS; run++) {
      let started = performance.now();
      const response = await app.inject({
        method: 'GET',
        url: '/v1/articles/aggregate?_group=topic&_count&_sum=words',
        headers: { authorization },
      });
      aggregate.push(performance.now() - started);
      const groups = (response.json() as { data?: unknown[] }).data;
      if (response.statusCode !== 200 || groups?.length !== MARKERS)
        throw new Error(`aggregate: ${response.statusCode} ${response.body.slice(0, 300)}`);
      started = performance.now();
      const byHand =
        await sql`select topic, count(*) as count, sum(words) as words from ${sql.table(table)} group by topic`.execute(
          ctx.store.db,
        );
      groupBy.push(performance.now() - started);
      if (byHand.rows.length !== MARKERS) throw new Error(`GROUP BY answered ${byHand.rows.length} groups`);
    }
    // The first run warms plans and caches up: not counted.
    return { database: kind, rows, aggregateMs: median(aggregate.slice(1)), groupByMs: median(groupBy.slice(1)) };
  });
}

export function formatAggregateCost(cost: AggregateCost): string {
  return `- ${cost.database} @ ${cost.rows} rows: aggregate (count and sum by an indexed field, 100 groups) ${cost.aggregateMs.toFixed(1)} ms, the same GROUP BY by hand ${cost.groupByMs.toFixed(1)} ms: ${(cost.aggregateMs / cost.groupByMs).toFixed(2)}x (medians of ${RUNS - 1}; target: within 2x)`;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const rows = Number(process.argv[2] ?? 1_000_000);
  const kind = (process.argv[3] ?? 'sqlite') as BenchDatabase;
  console.log(formatAggregateCost(await measureAggregateCost(kind, rows)));
}

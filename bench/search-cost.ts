// What a full-text search costs against a filter that matches as many records (the target: at
// a million rows a search answers within 2x of the same-size filter list), on the corpus of
// article-corpus.ts, where `_search=w7` and `topic=t7` match the same 1% of the table. Each request
// asks for another marker, so no answer comes from svc's page or count cache; both are the first page
// of 50 with its total, through svc's HTTP handling (inject), alternating so noise hits both alike.
//
//   node --import tsx bench/search-cost.ts [rows] [sqlite|postgres]   (BENCH_DATABASE_URL for postgres)
// `npm run bench` runs it too, at 1,000,000 rows per database (`--search-rows N`; 0 skips it).
import type { BenchDatabase } from './bench-options.ts';
import { MARKERS, median, withArticles } from './article-corpus.ts';

export interface SearchCost {
  database: BenchDatabase;
  rows: number;
  searchMs: number;
  filterMs: number;
}

export function measureSearchCost(
  kind: BenchDatabase,
  rows: number,
  postgresUrl = process.env.BENCH_DATABASE_URL,
): Promise<SearchCost> {
  return withArticles(kind, rows, postgresUrl, async (app, _ctx, authorization) => {
    const time = async (url: string) => {
      const started = performance.now();
      const response = await app.inject({ method: 'GET', url, headers: { authorization } });
      const elapsed = performance.now() - started;
      const body = response.json() as { data?: unknown[]; meta?: { total?: number } };
      if (response.statusCode !== 200 || body.data?.length !== 50)
        throw new Error(`${url}: ${response.statusCode} ${response.body.slice(0, 300)}`);
      return elapsed;
    };
    const search: number[] = [];
    const filter: number[] = [];
    for (let marker = 0; marker < MARKERS; marker++) {
      search.push(await time(`/v1/articles?_search=w${marker}&_limit=50`));
      filter.push(await time(`/v1/articles?topic=t${marker}&_limit=50`));
    }
    // The first tenth warms plans and caches up: not counted.
    const warm = MARKERS / 10;
    return { database: kind, rows, searchMs: median(search.slice(warm)), filterMs: median(filter.slice(warm)) };
  });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const rows = Number(process.argv[2] ?? 1_000_000);
  const kind = (process.argv[3] ?? 'sqlite') as BenchDatabase;
  console.log(formatSearchCost(await measureSearchCost(kind, rows)));
}

export function formatSearchCost(cost: SearchCost): string {
  return `- ${cost.database} @ ${cost.rows} rows: _search (1% match) ${cost.searchMs.toFixed(2)} ms, same-size filter list ${cost.filterMs.toFixed(2)} ms: search/filter ${(cost.searchMs / cost.filterMs).toFixed(2)} (medians, first page of 50 with its total; target: within 2x)`;
}

// A list request's plan: its page and count statements, compiled once per distinct query (popular lists
// repeat: the same page, filters and sort), since building and compiling them with Kysely was ~10% of a
// list request.
import { sql, type CompiledQuery, type SqlBool } from 'kysely';
import type { Resource } from '../resources/resource.ts';
import type { Db, ListCount, StoreDialect } from '../store/store-dialect.ts';
import { MATCH_ALL, type FilterNode } from '../model/filter-node.ts';
import { filterToSql } from './filter-to-sql.ts';
import { keysetSelect } from './keyset-select.ts';
import type { ListQuery } from './list-query.ts';
import type { VisibleRows } from './visible-rows.ts';
import { cached } from './weak-cache.ts';
import { searchMatchOf } from './search-match.ts';

type Row = Record<string, unknown>;

export interface ListPlan {
  page: CompiledQuery<Row>;
  count: CompiledQuery<{ total: number }>;
  /** How the count is taken where the dialect has its own way (StoreDialect.planCount); else `count` is run. */
  countPlan: ListCount | undefined;
  /** Their keys in the read caches, made once with them (undefined: not cacheable). */
  pageKey: string | undefined;
  countKey: string | undefined;
}

/** Distinct list queries kept per grant; a flood of one-off queries only resets the map. */
const MAX_COMPILED_LISTS = 256;

export class ListPlans {
  readonly #db: Db;
  readonly #dialect: StoreDialect;
  readonly #visible: VisibleRows;
  readonly #plans = new WeakMap<Resource, WeakMap<FilterNode, Map<string, ListPlan>>>();

  constructor(db: Db, dialect: StoreDialect, visible: VisibleRows) {
    this.#db = db;
    this.#dialect = dialect;
    this.#visible = visible;
  }

  /** The plan of `query` over the rows `filter` lets the caller see, selecting `attributes`. */
  planOf(resource: Resource, filter: FilterNode, query: ListQuery, attributes: readonly string[]): ListPlan {
    const byFilter = cached(this.#plans, resource, () => new WeakMap<FilterNode, Map<string, ListPlan>>());
    const lists = cached(byFilter, filter, () => new Map<string, ListPlan>());
    const keyset = query.keyset;
    // A cursor's plan and page serve that one request: kept (here or in the page cache), a client
    // walking through a long list would only push the popular lists out.
    const keep = keyset?.values == null;
    const key = JSON.stringify([
      attributes,
      query.filter,
      query.sort,
      query.limit,
      query.offset,
      keyset?.side,
      query.search,
      query.rank,
    ]);
    let plan = keep ? lists.get(key) : undefined;
    if (!plan) {
      const db = this.#db;
      const dialect = this.#dialect;
      const visible = this.#visible.of(resource, filter);
      const search = query.search && searchMatchOf(resource, query.search);
      const conditions = [
        ...(query.filter === MATCH_ALL ? [] : [filterToSql(query.filter, resource, dialect)]),
        ...(search ? [dialect.search.matches(resource.table, search)] : []),
      ];
      const requested =
        conditions.length === 0
          ? null
          : conditions.length === 1
            ? conditions[0]!
            : sql<SqlBool>`(${sql.join(conditions, sql` and `)})`;
      // A keyset page's links need its records' sort values, shown or not (`fields` may leave them out).
      const columns = keyset ? [...new Set([...attributes, ...query.sort.map((key) => key.field)])] : attributes;
      let select = db
        .selectFrom(resource.table)
        .select([...new Set(['id', 'created_at', 'updated_at', ...columns])])
        .where(visible);
      if (requested) select = select.where(requested);
      if (keyset) {
        select = keysetSelect(
          db,
          select,
          keyset,
          query,
          (arm) => filterToSql(arm, resource, dialect),
          dialect.nullsSortFirst,
        );
      } else {
        // By relevance first; the sort keys and the id then order equally relevant records.
        if (search && query.rank)
          select = select.orderBy(dialect.search.rank(resource.table, search), query.rank.descending ? 'desc' : 'asc');
        for (const sortKey of query.sort) select = select.orderBy(sortKey.field, sortKey.descending ? 'desc' : 'asc');
        select = select
          .orderBy('id', query.sort[0]?.descending ? 'desc' : 'asc')
          .limit(query.limit)
          .offset(query.offset);
      }
      let count = db.selectFrom(resource.table).select(sql<number>`count(*)`.as('total')).where(visible);
      if (requested) count = count.where(requested);
      const page = select.compile() as CompiledQuery<Row>;
      // A search that is the count's only condition is counted in the search index where it can be.
      const searchOnly =
        search && filter.kind === 'constant' && filter.value && !resource.softDelete && query.filter === MATCH_ALL;
      const indexCount = searchOnly ? dialect.search.countMatches?.(resource.table, search) : undefined;
      const total = indexCount ? indexCount.compile(db) : count.compile();
      const pageKey = keep ? queryKey(page) : undefined;
      const countPlan = dialect.planCount(db, resource.table, requested ? [visible, requested] : [visible], total);
      plan = { page, count: total, countPlan, pageKey, countKey: queryKey(total) };
      if (keep) {
        if (lists.size >= MAX_COMPILED_LISTS) lists.clear();
        lists.set(key, plan);
      }
    }
    return plan;
  }
}

/** A cache key for a compiled query: its SQL and parameters; undefined when a parameter has no JSON form. */
export function queryKey(query: CompiledQuery): string | undefined {
  try {
    return `${query.sql}\u0000${JSON.stringify(query.parameters)}`;
  } catch {
    return undefined; // a bigint parameter: just run the query
  }
}

// An aggregate request's statement: GROUP BY the group fields over the rows the caller may see and the
// filters match, with count, sum, avg, min and max, ordered and limited. Columns come back under
// positional aliases (g0, sum0, …), so no name a request gives reaches the SQL text but as a quoted
// identifier of a declared field.
import { sql, type CompiledQuery, type RawBuilder } from 'kysely';
import type { Resource } from '../resources/resource.ts';
import type { Db, StoreDialect } from '../store/store-dialect.ts';
import { MATCH_ALL, type FilterNode } from '../model/filter-node.ts';
import { filterToSql } from './filter-to-sql.ts';
import type { AggregateFunction, AggregateQuery } from './aggregate-query.ts';
import type { VisibleRows } from './visible-rows.ts';
import { searchMatchOf } from './search-match.ts';

type Row = Record<string, unknown>;

export interface AggregateColumn {
  /** The column's alias in the statement. */
  alias: string;
  field: string;
  fn: AggregateFunction;
}

export interface AggregatePlan {
  statement: CompiledQuery<Row>;
  /** The group fields' aliases, in `_group`'s order. */
  groups: { alias: string; field: string }[];
  aggregates: AggregateColumn[];
}

const FUNCTIONS: Record<AggregateFunction, (column: RawBuilder<unknown>) => RawBuilder<unknown>> = {
  sum: (column) => sql`sum(${column})`,
  avg: (column) => sql`avg(${column})`,
  min: (column) => sql`min(${column})`,
  max: (column) => sql`max(${column})`,
};

export class AggregatePlans {
  readonly #db: Db;
  readonly #dialect: StoreDialect;
  readonly #visible: VisibleRows;

  constructor(db: Db, dialect: StoreDialect, visible: VisibleRows) {
    this.#db = db;
    this.#dialect = dialect;
    this.#visible = visible;
  }

  planOf(resource: Resource, filter: FilterNode, query: AggregateQuery): AggregatePlan {
    const groups = query.group.map((field, i) => ({ alias: `g${i}`, field }));
    const aggregates: AggregateColumn[] = [];
    for (const [fn, fields] of query.aggregates)
      for (const field of fields) aggregates.push({ alias: `${fn}${aggregates.length}`, field, fn });
    const selections: RawBuilder<unknown>[] = groups.map(
      ({ alias, field }) => sql`${sql.ref(field)}`.as(alias) as unknown as RawBuilder<unknown>,
    );
    if (query.count) selections.push(sql`count(*)`.as('count') as unknown as RawBuilder<unknown>);
    for (const { alias, field, fn } of aggregates)
      selections.push(FUNCTIONS[fn](sql.ref(field)).as(alias) as unknown as RawBuilder<unknown>);
    let select = this.#db
      .selectFrom(resource.table)
      .select(selections as never) // aliased expressions; Kysely's typing of a dynamic select list is lost on them
      .where(this.#visible.of(resource, filter));
    if (query.filter !== MATCH_ALL) select = select.where(filterToSql(query.filter, resource, this.#dialect));
    if (query.search)
      select = select.where(this.#dialect.search.matches(resource.table, searchMatchOf(resource, query.search)));
    if (groups.length > 0) select = select.groupBy(groups.map(({ field }) => field));
    // Ordered by the expressions, not their aliases: PostgreSQL takes an alias in ORDER BY only bare, and
    // empty values go last in both directions on every database (`is null` sorts false before true).
    const expressionOf = (key: string): RawBuilder<unknown> => {
      if (key === 'count') return sql`count(*)`;
      if (groups.some((g) => g.field === key)) return sql`${sql.ref(key)}`;
      const dot = key.indexOf('.');
      const column = aggregates.find((a) => a.fn === key.slice(0, dot) && a.field === key.slice(dot + 1));
      return FUNCTIONS[column!.fn](sql.ref(column!.field)); // the parser admits only keys that name a selected column
    };
    const order = [
      ...query.sort,
      // Then by the groups, so equal sort values come in one order on every database.
      ...groups
        .filter((g) => !query.sort.some((key) => key.key === g.field))
        .map((g) => ({ key: g.field, descending: false })),
    ];
    for (const key of order) {
      const expression = expressionOf(key.key);
      select = select.orderBy(sql`(${expression} is null)`, 'asc').orderBy(expression, key.descending ? 'desc' : 'asc');
    }
    return { statement: select.limit(query.limit).compile() as CompiledQuery<Row>, groups, aggregates };
  }
}

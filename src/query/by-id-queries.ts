// Statements that read one record by id, compiled once per resource and access filter (grants are
// cached, so their filter objects are stable) and then bound to each id.
import { sql, type RawBuilder } from 'kysely';
import type { Resource } from '../resources/resource.ts';
import type { Db, StoreDialect } from '../store/store-dialect.ts';
import { QueryTemplate, TEMPLATE_SLOT } from '../store/query-template.ts';
import type { FilterNode } from '../model/filter-node.ts';
import { filterToSql } from './filter-to-sql.ts';
import { columnsOf } from './record-columns.ts';
import type { VisibleRows } from './visible-rows.ts';
import { cached } from './weak-cache.ts';

type Row = Record<string, unknown>;

/** A record by id under one row filter; `many` takes an array of ids, where the dialect reads them together (StoreDialect.idAmong). */
export interface FindQueries {
  one: QueryTemplate<Row>;
  many: QueryTemplate<Row> | undefined;
}

/**
 * The read of a write's target row, with whether the caller may read it (`__readable`) and make the
 * action on it (`__allowed`): locked in the write's transaction, or unlocked with its version
 * (`__version`) where the store makes changes at a version read (OneStatementWriter).
 */
export interface WriteTargetQueries {
  locking: QueryTemplate<Row>;
  versioned: FindQueries | undefined;
}

export class ByIdQueries {
  readonly #db: Db;
  readonly #dialect: StoreDialect;
  readonly #visible: VisibleRows;
  readonly #rowVersion: RawBuilder<string> | undefined;
  readonly #find = new WeakMap<Resource, WeakMap<FilterNode, FindQueries>>();
  readonly #writeTarget = new WeakMap<Resource, WeakMap<FilterNode, WeakMap<FilterNode, WriteTargetQueries>>>();

  /** `rowVersion`: the version a write's target is read with, where changes are made at a version read. */
  constructor(db: Db, dialect: StoreDialect, visible: VisibleRows, rowVersion: RawBuilder<string> | undefined) {
    this.#db = db;
    this.#dialect = dialect;
    this.#visible = visible;
    this.#rowVersion = rowVersion;
  }

  /** A visible row by id; where the dialect can, also many by id, for reads batched together. */
  find(resource: Resource, filter: FilterNode): FindQueries {
    const byFilter = cached(this.#find, resource, () => new WeakMap<FilterNode, FindQueries>());
    return cached(byFilter, filter, () => {
      const { idAmong } = this.#dialect;
      const visible = this.#visible.of(resource, filter);
      const select = () => this.#db.selectFrom(resource.table).select(columnsOf(resource));
      return {
        one: new QueryTemplate(select().where('id', '=', TEMPLATE_SLOT).where(visible)),
        many: idAmong ? new QueryTemplate(select().where('id', '=', idAmong(TEMPLATE_SLOT)).where(visible)) : undefined,
      };
    });
  }

  /** The target of a write under the caller's read filter and the action's own filter. */
  writeTarget(resource: Resource, readFilter: FilterNode, actionFilter: FilterNode): WriteTargetQueries {
    const byFilters = cached(
      this.#writeTarget,
      resource,
      () => new WeakMap<FilterNode, WeakMap<FilterNode, WriteTargetQueries>>(),
    );
    return cached(
      cached(byFilters, readFilter, () => new WeakMap<FilterNode, WriteTargetQueries>()),
      actionFilter,
      () => {
        const dialect = this.#dialect;
        const { idAmong } = dialect;
        const select = (byIds: boolean) => {
          let query = this.#db
            .selectFrom(resource.table)
            .select(columnsOf(resource))
            .select([
              sql<number>`case when ${filterToSql(readFilter, resource, dialect)} then 1 else 0 end`.as('__readable'),
              sql<number>`case when ${filterToSql(actionFilter, resource, dialect)} then 1 else 0 end`.as('__allowed'),
            ])
            .where('id', '=', byIds && idAmong ? idAmong(TEMPLATE_SLOT) : TEMPLATE_SLOT);
          if (resource.softDelete) query = query.where('deleted_at', 'is', null);
          return query;
        };
        const locking = dialect.supportsSkipLocked ? select(false).forUpdate() : select(false);
        const rowVersion = this.#rowVersion;
        return {
          locking: new QueryTemplate<Row>(locking),
          versioned: rowVersion
            ? {
                one: new QueryTemplate<Row>(select(false).select(rowVersion.as('__version'))),
                many: idAmong ? new QueryTemplate<Row>(select(true).select(rowVersion.as('__version'))) : undefined,
              }
            : undefined,
        };
      },
    );
  }
}

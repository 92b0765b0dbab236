// The SQL condition that selects the rows a caller may see: their grant's filter, and not soft-deleted.
import { sql, type RawBuilder, type SqlBool } from 'kysely';
import type { Resource } from '../resources/resource.ts';
import type { StoreDialect } from '../store/store-dialect.ts';
import type { FilterNode } from '../model/filter-node.ts';
import { filterToSql } from './filter-to-sql.ts';
import { cached } from './weak-cache.ts';

export class VisibleRows {
  readonly #dialect: StoreDialect;
  /** Per resource and grant filter (grants are cached, so their filter objects are stable). */
  readonly #conditions = new WeakMap<Resource, WeakMap<FilterNode, RawBuilder<SqlBool>>>();

  constructor(dialect: StoreDialect) {
    this.#dialect = dialect;
  }

  /** The condition for a grant's own filter, compiled once (a RawBuilder is immutable, so it can be shared). */
  of(resource: Resource, filter: FilterNode): RawBuilder<SqlBool> {
    const byFilter = cached(this.#conditions, resource, () => new WeakMap<FilterNode, RawBuilder<SqlBool>>());
    return cached(byFilter, filter, () => {
      const condition = filterToSql(filter, resource, this.#dialect);
      return resource.softDelete ? sql<SqlBool>`(${condition} and ${sql.ref('deleted_at')} is null)` : condition;
    });
  }
}

// A grant's check rule: what a written record must satisfy, enforced in SQL inside the write's
// transaction, or decided beforehand in memory for a write made in one statement.
import { ApiError } from '../errors/api-error.ts';
import type { Resource } from '../resources/resource.ts';
import type { Db, StoreDialect } from '../store/store-dialect.ts';
import type { AccessGrant } from '../model/access-grant.ts';
import type { FilterNode } from '../model/filter-node.ts';
import { filterToSql } from '../query/filter-to-sql.ts';
import { filterToPredicate, type RecordPredicate } from '../query/filter-to-predicate.ts';
import { cached } from '../query/weak-cache.ts';
import type { RecordValues } from '../model/record-values.ts';

export class CheckRule {
  readonly #dialect: StoreDialect;
  readonly #predicates = new WeakMap<FilterNode, RecordPredicate>();

  constructor(dialect: StoreDialect) {
    this.#dialect = dialect;
  }

  /** 403 unless the row `id` as written satisfies the grant's check rule (none: nothing to check). */
  async enforce(trx: Db, resource: Resource, id: string, grant: AccessGrant): Promise<void> {
    if (!grant.check) return;
    const row = await trx
      .selectFrom(resource.table)
      .select('id')
      .where('id', '=', id)
      .where(filterToSql(grant.check, resource, this.#dialect))
      .executeTakeFirst();
    if (!row) throw new ApiError('FORBIDDEN', `The record as written does not satisfy the ${resource.name} check rule`);
  }

  /**
   * Whether `record`, as it would be stored, satisfies the grant's check rule, decided in memory by the
   * predicate the streams use (it selects exactly what the SQL filter selects: filter-agreement.test.ts).
   * A one-statement write goes ahead only when it does; otherwise the usual transaction writes, checks
   * in SQL and answers as it always has.
   */
  passes(resource: Resource, grant: AccessGrant, record: RecordValues): boolean {
    if (!grant.check) return true;
    return cached(this.#predicates, grant.check, () => filterToPredicate(grant.check!, resource))(record);
  }
}

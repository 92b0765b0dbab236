// Whether the records a write refers to exist for the caller. A record outside the caller's read filter
// on its resource (or in a resource the caller cannot read at all) is treated as absent, exactly like a
// missing or soft-deleted one, so a relation field cannot be used to probe the ids of hidden records.
import { ApiError, type ErrorIssue } from '../errors/api-error.ts';
import type { Principal } from '../model/principal.ts';
import { resolveAccess } from '../permissions/resolve-access.ts';
import { filterToSql } from '../query/filter-to-sql.ts';
import type { FilterNode } from '../model/filter-node.ts';
import type { Resource } from '../resources/resource.ts';
import type { Db, StoreDialect } from '../store/store-dialect.ts';

export interface Reference {
  /** The relation field. */
  name: string;
  target: Resource;
  id: unknown;
}

const NOTHING: FilterNode = { kind: 'constant', value: false };

/** The rows of `target` the caller may refer to: those they may read. */
export function referableFilter(target: Resource, principal: Principal): FilterNode {
  try {
    return resolveAccess(target, principal, 'read').filter;
  } catch (error) {
    if (error instanceof ApiError) return NOTHING;
    throw error;
  }
}

/** Whether every row of `target` is referable by the caller (the database's own check is then enough). */
export function mayReferToAnyRow(target: Resource, principal: Principal): boolean {
  const filter = referableFilter(target, principal);
  return filter.kind === 'constant' && filter.value;
}

/** The same issue for a missing, soft-deleted and unreadable target. */
export function missingReference(reference: Reference): ErrorIssue {
  return {
    field: reference.name,
    detail: `No ${reference.target.name} record with id '${String(reference.id)}'`,
  };
}

/** Throws 400 RELATION_REFERENCE_ERROR, one issue per reference the caller cannot see. */
export async function checkReferences(
  db: Db,
  dialect: StoreDialect,
  references: readonly Reference[],
  principal: Principal,
): Promise<void> {
  const issues: ErrorIssue[] = [];
  for (const reference of references) {
    const { target, id } = reference;
    let query = db
      .selectFrom(target.table)
      .select('id')
      .where('id', '=', id as string)
      .where(filterToSql(referableFilter(target, principal), target, dialect));
    if (target.softDelete) query = query.where('deleted_at', 'is', null);
    if (!(await query.executeTakeFirst())) issues.push(missingReference(reference));
  }
  if (issues.length > 0) throw new ApiError('RELATION_REFERENCE_ERROR', issues);
}

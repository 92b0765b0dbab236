// Before a delete: the file fields' values of the rows it will remove through cascades, which write no
// event (model/cascaded-files.ts). Only branches of the relation graph that reach a file field are read.
import type { CascadedFileValue } from '../model/cascaded-files.ts';
import type { Resource } from '../resources/resource.ts';
import type { ResourceRegistry } from '../resources/resource-registry.ts';
import type { Db, StoreDialect } from '../store/store-dialect.ts';
import { decodeRow } from './record-codec.ts';
import { referrers } from './relation-references.ts';

/** Relation chains deeper than this are not followed (a cycle of cascades ends here too). */
const MAX_DEPTH = 8;

/** The resources whose rows a delete of `resource` removes by cascade. */
function cascadingChildren(registry: ResourceRegistry, resource: Resource) {
  return [...referrers(registry, resource)].filter(({ field }) => field.definition.onDelete === 'cascade');
}

/** Some row a cascade from `resource` removes may hold files. */
export function cascadeReachesFiles(registry: ResourceRegistry, resource: Resource, depth = 0): boolean {
  if (depth >= MAX_DEPTH) return false;
  return cascadingChildren(registry, resource).some(
    ({ child }) => child.fileFields.length > 0 || cascadeReachesFiles(registry, child, depth + 1),
  );
}

/**
 * The files of the rows a delete of `resource`'s rows `ids` removes by cascade. `softParent`: the
 * parent is soft-deleted, so only children without soft delete are removed (and what cascades from them).
 */
export async function filesCascadedBy(
  trx: Db,
  dialect: StoreDialect,
  registry: ResourceRegistry,
  resource: Resource,
  ids: readonly string[],
  softParent = false,
  depth = 0,
): Promise<CascadedFileValue[]> {
  const found: CascadedFileValue[] = [];
  if (ids.length === 0 || depth >= MAX_DEPTH) return found;
  for (const { child, field } of cascadingChildren(registry, resource)) {
    if (softParent && child.softDelete) continue;
    const files = child.fileFields;
    if (files.length === 0 && !cascadeReachesFiles(registry, child, depth + 1)) continue;
    const rows = (await trx
      .selectFrom(child.table)
      .select(['id', ...files])
      .where(field.name, 'in', [...ids])
      .execute()) as Record<string, unknown>[];
    const childIds: string[] = [];
    for (const row of rows) {
      const record = decodeRow(child, dialect, row);
      const recordId = String(record.id);
      childIds.push(recordId);
      for (const name of files) found.push({ resource: child.name, recordId, field: name, value: record[name] });
    }
    // Below a removed row the database cascades on every child, soft delete or not.
    found.push(...(await filesCascadedBy(trx, dialect, registry, child, childIds, false, depth + 1)));
  }
  return found;
}

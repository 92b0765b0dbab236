// The relations a write touches: the records its values refer to, and the fields of other resources
// that refer to the record it changes (whose onDelete rules a soft delete applies itself).
import { ApiError } from '../errors/api-error.ts';
import type { Resource, ResourceField } from '../resources/resource.ts';
import type { ResourceRegistry } from '../resources/resource-registry.ts';
import type { RequiredRow } from '../store/one-statement-writes.ts';
import type { Db, StoreDialect } from '../store/store-dialect.ts';
import type { RecordValues } from '../model/record-values.ts';
import type { Reference } from './check-references.ts';

/** The relation fields `values` set to a record id, with the resource each refers to. */
export function referencesIn(registry: ResourceRegistry, resource: Resource, values: RecordValues): Reference[] {
  const references: Reference[] = [];
  for (const [name, id] of Object.entries(values)) {
    const field = resource.fields.get(name);
    if (field?.definition.type !== 'relation' || id === null || id === undefined) continue;
    const target = registry.find(field.definition.resource ?? '');
    if (target) references.push({ name, target, id });
  }
  return references;
}

/** The rows `values` refer to, which must exist (and not be soft-deleted) for the write to apply. */
export function requiredRows(registry: ResourceRegistry, resource: Resource, values: RecordValues): RequiredRow[] {
  return referencesIn(registry, resource, values).map(({ target, id }) => ({
    table: target.table,
    id,
    live: target.softDelete,
  }));
}

/** The relation fields of every resource that refer to `resource`. */
export function* referrers(
  registry: ResourceRegistry,
  resource: Resource,
): Generator<{ child: Resource; field: ResourceField }> {
  for (const child of registry.all()) {
    for (const field of child.fields.values()) {
      if (field.definition.type === 'relation' && field.definition.resource === resource.name) yield { child, field };
    }
  }
}

/** Some resource has a relation to `resource` (a soft delete applies their onDelete rules itself). */
export function isReferenced(registry: ResourceRegistry, resource: Resource): boolean {
  return referrers(registry, resource).next().done !== true;
}

/** Soft delete keeps the row, so the database's ON DELETE rules do not fire: apply them here. */
export async function applySoftDeleteReferences(
  trx: Db,
  dialect: StoreDialect,
  registry: ResourceRegistry,
  resource: Resource,
  id: string,
): Promise<void> {
  for (const { child, field } of referrers(registry, resource)) {
    const action = field.definition.onDelete ?? 'restrict';
    let live = trx.selectFrom(child.table).select('id').where(field.name, '=', id);
    if (child.softDelete) live = live.where('deleted_at', 'is', null);
    if (action === 'restrict') {
      if (await live.limit(1).executeTakeFirst()) {
        throw new ApiError('CONFLICT', `${resource.name}/${id} is still referenced by ${child.name}.${field.name}`);
      }
    } else if (action === 'set_null') {
      await trx
        .updateTable(child.table)
        .set({ [field.name]: null })
        .where(field.name, '=', id)
        .execute();
    } else if (child.softDelete) {
      await trx
        .updateTable(child.table)
        .set({ deleted_at: dialect.encode('timestamp', new Date().toISOString()) })
        .where(field.name, '=', id)
        .where('deleted_at', 'is', null)
        .execute();
    } else {
      await trx.deleteFrom(child.table).where(field.name, '=', id).execute();
    }
  }
}

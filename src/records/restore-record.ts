// Restoring a soft-deleted record (POST /admin/resources/:name/deleted/:id/restore): `deleted_at` is
// cleared in one transaction with an `updated` event (old: the record as deleted, new: as restored), so
// streams and webhooks hear of it like any change. A record that is not deleted is a conflict, as is one
// whose relations point at records that are gone: restoring it would make a live record refer to nothing.
import { ApiError, type ErrorIssue } from '../errors/api-error.ts';
import { buildRecordEvent } from '../events/build-record-event.ts';
import type { RecordValues } from '../model/record-values.ts';
import type { Resource } from '../resources/resource.ts';
import type { ResourceRegistry } from '../resources/resource-registry.ts';
import type { Store } from '../store/create-store.ts';
import type { Db } from '../store/store-dialect.ts';
import type { ChangeRunner } from './change-runner.ts';
import { decodeRow } from './record-codec.ts';
import type { RequestMeta } from './record-results.ts';
import { referencesIn } from './relation-references.ts';

export interface RestoreParts {
  store: Store;
  registry: ResourceRegistry;
  runner: ChangeRunner;
}

/** The restored record (without `deleted_at`). 404 unknown id, 409 not deleted or its references gone. */
export function restoreRecord(
  parts: RestoreParts,
  resource: Resource,
  meta: RequestMeta,
  id: string,
): Promise<RecordValues> {
  const { store, runner } = parts;
  return runner.run('RESOURCE_UPDATE_ERROR', async (trx, events) => {
    const row = await trx.selectFrom(resource.table).selectAll().where('id', '=', id).executeTakeFirst();
    if (!row) throw new ApiError('RESOURCE_NOT_FOUND', `No ${resource.name} record with id '${id}'`);
    const old = decodeRow(resource, store.dialect, row as Record<string, unknown>);
    if (old.deleted_at === null || old.deleted_at === undefined)
      throw new ApiError('CONFLICT', `The ${resource.name} record '${id}' is not deleted: there is nothing to restore`);
    await requireLiveReferences(trx, parts, resource, old);
    const now = new Date().toISOString();
    const updated = await trx
      .updateTable(resource.table)
      .set({ deleted_at: null, updated_at: store.dialect.encode('timestamp', now) })
      .where('id', '=', id)
      // Restored by a concurrent request meanwhile: only one restore writes, and only one event.
      .where('deleted_at', 'is not', null)
      .executeTakeFirst();
    if (Number(updated.numUpdatedRows) === 0)
      throw new ApiError('CONFLICT', `The ${resource.name} record '${id}' is not deleted: there is nothing to restore`);
    const { deleted_at: _deletedAt, ...live } = old;
    const restored: RecordValues = { ...live, updated_at: now };
    await runner.writeEvent(trx, events, buildRecordEvent(resource.name, meta, 'updated', id, old, restored));
    return restored;
  });
}

/** 409 CONFLICT naming each relation field whose record was deleted or soft-deleted since. */
async function requireLiveReferences(
  trx: Db,
  { registry }: RestoreParts,
  resource: Resource,
  record: RecordValues,
): Promise<void> {
  const issues: ErrorIssue[] = [];
  for (const { name, target, id } of referencesIn(registry, resource, record)) {
    let query = trx
      .selectFrom(target.table)
      .select('id')
      .where('id', '=', id as string);
    if (target.softDelete) query = query.where('deleted_at', 'is', null);
    if (!(await query.executeTakeFirst()))
      issues.push({
        detail: `Its ${name} refers to the ${target.name} record '${String(id)}', which is deleted: restore or change that first`,
      });
  }
  if (issues.length > 0) throw new ApiError('CONFLICT', issues);
}

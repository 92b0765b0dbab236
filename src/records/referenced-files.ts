// Every file the stored records name, soft-deleted rows included (their files stay until the purge):
// what the storage audit keeps. Read in keyset batches, one resource and its file columns at a time.
import type { Resource } from '../resources/resource.ts';
import { fileMetadataOf } from '../resources/field-types/file-metadata.ts';
import type { Store } from '../store/create-store.ts';
import { decodeRow } from './record-codec.ts';

const BATCH = 500;

export interface FileReference {
  readonly resource: string;
  readonly recordId: string;
  readonly field: string;
}

/** File id → where its record keeps it. */
export async function referencedFiles(
  store: Pick<Store, 'db' | 'dialect'>,
  resources: readonly Resource[],
): Promise<Map<string, FileReference>> {
  const found = new Map<string, FileReference>();
  for (const resource of resources) {
    const fields = resource.fileFields;
    if (fields.length === 0) continue;
    let after: string | undefined;
    for (;;) {
      let query = store.db
        .selectFrom(resource.table)
        .select(['id', ...fields])
        .orderBy('id')
        .limit(BATCH);
      if (after !== undefined) query = query.where('id', '>', after);
      const rows = (await query.execute()) as Record<string, unknown>[];
      for (const row of rows) {
        const record = decodeRow(resource, store.dialect, row);
        const recordId = String(record.id);
        for (const field of fields)
          for (const file of fileMetadataOf(record[field]))
            found.set(file.id, { resource: resource.name, recordId, field });
      }
      if (rows.length < BATCH) break;
      after = String(rows[rows.length - 1]?.id);
    }
  }
  return found;
}

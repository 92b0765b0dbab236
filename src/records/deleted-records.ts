// Soft-deleted records, which the API otherwise treats as gone: read for the administrator only
// (GET /admin/resources/:name/deleted), most recently deleted first.
import type { RecordValues } from '../model/record-values.ts';
import type { Resource } from '../resources/resource.ts';
import type { Store } from '../store/create-store.ts';
import { decodeRow } from './record-codec.ts';

export interface DeletedPage {
  records: RecordValues[];
  total: number;
}

export async function listDeletedRecords(
  store: Store,
  resource: Resource,
  page: { limit: number; offset: number },
): Promise<DeletedPage> {
  const deleted = () => store.db.selectFrom(resource.table).where('deleted_at', 'is not', null);
  const [rows, counted] = await Promise.all([
    deleted()
      .selectAll()
      .orderBy('deleted_at', 'desc')
      .orderBy('id', 'desc')
      .limit(page.limit)
      .offset(page.offset)
      .execute(),
    deleted()
      .select((eb) => eb.fn.countAll<number | string | bigint>().as('total'))
      .executeTakeFirst(),
  ]);
  return { records: rows.map((row) => decodeRow(resource, store.dialect, row)), total: Number(counted?.total ?? 0) };
}

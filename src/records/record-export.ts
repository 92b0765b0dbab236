// Every record of a list the caller may read, in batches, for an export (docs/records.md, "Export"):
// keyset pages underneath, so a batch costs the same at the end of a million rows as at the start and
// only one batch is held at a time, whatever the list's length.
import type { RecordValues } from '../model/record-values.ts';
import { decodeCursor, encodeCursor } from '../query/keyset-cursor.ts';
import type { KeysetPage, ListQuery } from '../query/list-query.ts';
import type { Resource } from '../resources/resource.ts';

/** Rows per keyset page: big enough that a page's round trip is small beside its rows, small enough to hold. */
export const EXPORT_BATCH_SIZE = 500;

export interface ExportedRecords {
  /** The attributes each record shows: the readable fields, or those `fields=` asked for. */
  attributes: string[];
  /** The first batch, read before the answer starts so a failing read still answers with an error document. */
  first: RecordValues[];
  /** The batches after the first, read one at a time as the consumer asks. */
  rest: AsyncGenerator<RecordValues[]>;
}

/** Reads one keyset page of `query` (limit + 1 rows, in the list's order). */
export type KeysetRead = (query: ListQuery) => Promise<RecordValues[]>;

export async function exportBatches(
  resource: Resource,
  query: ListQuery,
  attributes: string[],
  readPage: KeysetRead,
  batchSize = EXPORT_BATCH_SIZE,
): Promise<ExportedRecords> {
  const pageAfter = (page: KeysetPage): ListQuery => ({ ...query, limit: batchSize, offset: 0, keyset: page });
  const read = async (page: KeysetPage) => {
    const rows = await readPage(pageAfter(page));
    return { records: rows.slice(0, batchSize), more: rows.length > batchSize };
  };
  // The next page starts after the last record, as a client following links.next would ask.
  const after = (last: RecordValues): KeysetPage => {
    const text = encodeCursor(query.sort, last);
    const values = decodeCursor(text, query.sort, resource);
    if (values === null || values instanceof Error)
      throw new Error(`an export cursor did not read back: ${String(values)}`);
    return { side: 'after', values, text };
  };
  const first = await read({ side: 'after', values: null, text: '' });
  async function* rest(): AsyncGenerator<RecordValues[]> {
    let page = first;
    while (page.more && page.records.length > 0) {
      page = await read(after(page.records.at(-1)!));
      if (page.records.length > 0) yield page.records;
    }
  }
  return { attributes, first: first.records, rest: rest() };
}

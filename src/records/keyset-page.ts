// A keyset page's rows as read (one more than the page, in the order read) → the page in the list's
// order, and whether more rows lie beyond it on the side it was read towards.
import type { RecordValues } from '../model/record-values.ts';
import type { KeysetPage } from '../query/list-query.ts';

export interface KeysetRecords {
  records: RecordValues[];
  /** A row beyond the page was read: the list goes on past it (after it, or before it for page[before]). */
  more: boolean;
}

/** A new array each time: `read` may be a cached page shared with other requests. */
export function keysetRecords(read: readonly RecordValues[], limit: number, page: KeysetPage): KeysetRecords {
  const records = read.slice(0, limit);
  if (page.side === 'before') records.reverse();
  return { records, more: read.length > limit };
}

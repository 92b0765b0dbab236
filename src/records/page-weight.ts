// About how much memory a cached list page holds, so the page cache is bounded in bytes and not only
// in rows: a page of 50 rows with 100 KB text fields is 5 MB, and 256 of them would not fit anywhere.
// Counted in UTF-16 code units of the values' text (what V8 keeps for most strings), plus a little per
// value; run only when a page is read from the database, never on a cache hit.
import type { RecordValues } from '../model/record-values.ts';

const PER_VALUE = 16;

function valueWeight(value: unknown): number {
  if (typeof value === 'string') return value.length + PER_VALUE;
  if (value === null || typeof value !== 'object') return PER_VALUE;
  try {
    return JSON.stringify(value).length + PER_VALUE;
  } catch {
    return PER_VALUE;
  }
}

export function pageWeight(records: readonly RecordValues[]): number {
  let weight = PER_VALUE;
  for (const record of records) {
    for (const key in record) weight += valueWeight(record[key]) + key.length;
  }
  return weight;
}

// A record as a hook or custom route reads it: the system columns and the fields it may read, nothing else.
import type { RecordValues } from '../model/record-values.ts';

export function visibleRecord(record: RecordValues, fields: Iterable<string>): RecordValues {
  const shown: RecordValues = { id: record.id, created_at: record.created_at, updated_at: record.updated_at };
  for (const field of fields) if (Object.hasOwn(record, field)) shown[field] = record[field];
  return shown;
}

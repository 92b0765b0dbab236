// Files of rows a delete removes without an event of their own (the database's ON DELETE CASCADE, or a
// soft delete's cascade into a resource without soft delete). The deleting record's event carries them
// here, beside it and never in its stored or sent contents, so the file service removes them after the
// commit as it removes the deleted record's own files.
import type { RecordEvent } from './record-event.ts';

/** One file field's value (metadata, one or a list) of one removed row. */
export interface CascadedFileValue {
  resource: string;
  recordId: string;
  field: string;
  value: unknown;
}

const cascaded = new WeakMap<RecordEvent, readonly CascadedFileValue[]>();

export function noteCascadedFiles(event: RecordEvent, values: readonly CascadedFileValue[]): void {
  if (values.length > 0) cascaded.set(event, values);
}

export function cascadedFilesOf(event: RecordEvent): readonly CascadedFileValue[] {
  return cascaded.get(event) ?? [];
}

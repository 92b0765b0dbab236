// Rows as stored ↔ records as the API shows them, through the dialect's encoding of each storage kind.
import type { Resource } from '../resources/resource.ts';
import type { StoreDialect } from '../store/store-dialect.ts';
import type { RecordValues } from '../model/record-values.ts';

const SYSTEM_COLUMNS = ['id', 'created_at', 'updated_at', 'deleted_at'] as const;

/** Every column of a stored row in its JSON form: `id`, fields, `created_at`, `updated_at` (+ `deleted_at`). */
export function decodeRow(resource: Resource, dialect: StoreDialect, row: Record<string, unknown>): RecordValues {
  const record: RecordValues = { id: row.id };
  for (const name of resource.fieldNames) {
    if (Object.hasOwn(row, name)) record[name] = dialect.decode(resource.fields.get(name)!.storage, row[name]);
  }
  record.created_at = dialect.decode('timestamp', row.created_at);
  record.updated_at = dialect.decode('timestamp', row.updated_at);
  if (resource.softDelete && Object.hasOwn(row, 'deleted_at'))
    record.deleted_at = dialect.decode('timestamp', row.deleted_at);
  return record;
}

/** Field values (API form) → column values for an insert or update. */
export function encodeValues(resource: Resource, dialect: StoreDialect, values: RecordValues): Record<string, unknown> {
  const row: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(values)) {
    const kind = resource.storageOf(name);
    if (kind) row[name] = dialect.encode(kind, value);
  }
  return row;
}

export function isSystemColumn(name: string): boolean {
  return (SYSTEM_COLUMNS as readonly string[]).includes(name);
}

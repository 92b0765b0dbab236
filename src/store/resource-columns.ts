// What store/ is told of a resource's table: its columns, indexes and foreign keys, and for each declared
// field what a change of its definition means. src/resources/table-spec.ts derives them from a Resource.
import type { FieldDefinition } from '../config/config-types.ts';
import type { StorageKind } from './storage-kind.ts';
import type { SearchIndexSpec } from './search-index.ts';

export type ForeignKeyAction = 'restrict' | 'cascade' | 'set null';

export interface ColumnSpec {
  name: string;
  kind: StorageKind;
  notNull: boolean;
  /** Relations: the target resource's table and what deleting a target does. */
  references?: { table: string; onDelete: ForeignKeyAction };
}

export interface IndexSpec {
  name: string;
  column: string;
  unique: boolean;
}

/** A declared field's column: its definition (to judge a change of type) and its default. */
export interface FieldColumn {
  definition: FieldDefinition;
  required: boolean;
  /** The default in its field type's canonical form; undefined when the field has none. */
  defaultValue: unknown;
}

/** One resource's table as the schema planner needs it. */
export interface TableSpec {
  /** The resource's name: its definitions were recorded under it. */
  name: string;
  table: string;
  softDelete: boolean;
  /** Every column but `id`, system ones first. */
  columns: ColumnSpec[];
  indexes: IndexSpec[];
  /** Declared fields by column name. */
  fields: ReadonlyMap<string, FieldColumn>;
  /** The full-text index of the searchable columns; undefined when no field is searchable. */
  search?: SearchIndexSpec;
}

/** Index names svc gives a resource table's column indexes; other names on the table are left alone. */
export function uniqueIndexName(table: string, column: string): string {
  return `uq_${table}_${column}`;
}

export function plainIndexName(table: string, column: string): string {
  return `ix_${table}_${column}`;
}

/** The column a managed index of `table` covers, or undefined for an index svc did not name. */
export function managedIndexColumn(table: string, index: string): string | undefined {
  for (const prefix of [`uq_${table}_`, `ix_${table}_`]) {
    if (index.startsWith(prefix) && index.length > prefix.length) return index.slice(prefix.length);
  }
  return undefined;
}

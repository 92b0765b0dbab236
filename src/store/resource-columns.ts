// The columns, indexes and foreign keys a resource's table should have, derived from its definition.
import type { Resource } from '../resources/resource.ts';
import type { StorageKind } from './storage-kind.ts';

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

export function columnsOf(resource: Resource): ColumnSpec[] {
  const columns: ColumnSpec[] = [
    { name: 'created_at', kind: 'timestamp', notNull: true },
    { name: 'updated_at', kind: 'timestamp', notNull: true },
  ];
  if (resource.softDelete) columns.push({ name: 'deleted_at', kind: 'timestamp', notNull: false });
  for (const field of resource.fields.values()) {
    const column: ColumnSpec = { name: field.name, kind: field.storage, notNull: false };
    if (field.definition.type === 'relation' && field.definition.resource) {
      const action = field.definition.onDelete ?? 'restrict';
      column.references = { table: field.definition.resource, onDelete: action === 'set_null' ? 'set null' : action };
    }
    columns.push(column);
  }
  return columns;
}

/** Index names svc gives a resource table's column indexes; other names on the table are left alone. */
export function uniqueIndexName(table: string, column: string): string {
  return `uq_${table}_${column}`;
}

export function plainIndexName(table: string, column: string): string {
  return `ix_${table}_${column}`;
}

/** Every `unique` field, every other `sortable` or relation field, and the creation time (the default order). */
export function indexesOf(resource: Resource): IndexSpec[] {
  const indexes: IndexSpec[] = [];
  for (const field of resource.fields.values()) {
    if (field.definition.unique) indexes.push({ name: uniqueIndexName(resource.table, field.name), column: field.name, unique: true });
    else if (field.sortable || field.definition.type === 'relation') {
      indexes.push({ name: plainIndexName(resource.table, field.name), column: field.name, unique: false });
    }
  }
  indexes.push({ name: plainIndexName(resource.table, 'created_at'), column: 'created_at', unique: false });
  return indexes;
}

/** The column a managed index of `table` covers, or undefined for an index svc did not name. */
export function managedIndexColumn(table: string, index: string): string | undefined {
  for (const prefix of [`uq_${table}_`, `ix_${table}_`]) {
    if (index.startsWith(prefix) && index.length > prefix.length) return index.slice(prefix.length);
  }
  return undefined;
}

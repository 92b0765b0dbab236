// A resource's table as store/ is told it: the columns, indexes and foreign keys its definition asks for,
// and each declared field's definition and default, so store/ plans a schema without knowing a Resource.
import type { Resource } from './resource.ts';
import {
  plainIndexName,
  uniqueIndexName,
  type ColumnSpec,
  type FieldColumn,
  type IndexSpec,
  type TableSpec,
} from '../store/resource-columns.ts';

export function tableSpecOf(resource: Resource): TableSpec {
  const fields = new Map<string, FieldColumn>();
  for (const field of resource.fields.values()) {
    const declared = field.definition.default;
    fields.set(field.name, {
      definition: field.definition,
      required: field.required,
      defaultValue: declared === undefined ? undefined : field.type.normalize(structuredClone(declared)),
    });
  }
  const spec: TableSpec = {
    name: resource.name,
    table: resource.table,
    softDelete: resource.softDelete,
    columns: columnsOf(resource),
    indexes: indexesOf(resource),
    fields,
  };
  if (resource.search) spec.search = { columns: resource.search.fields, language: resource.search.language };
  return spec;
}

function columnsOf(resource: Resource): ColumnSpec[] {
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

/** Every `unique` field, every other `sortable` or relation field, and the creation time (the default order). */
function indexesOf(resource: Resource): IndexSpec[] {
  const indexes: IndexSpec[] = [];
  for (const field of resource.fields.values()) {
    if (field.definition.unique)
      indexes.push({ name: uniqueIndexName(resource.table, field.name), column: field.name, unique: true });
    else if (field.sortable || field.definition.type === 'relation') {
      indexes.push({ name: plainIndexName(resource.table, field.name), column: field.name, unique: false });
    }
  }
  indexes.push({ name: plainIndexName(resource.table, 'created_at'), column: 'created_at', unique: false });
  return indexes;
}

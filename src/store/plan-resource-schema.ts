// What applying the resource definitions would change in the database, worked out without changing
// anything: `svc plan` prints it, `svc start` applies it (apply-schema-plan.ts), so the two cannot disagree.
// Field changes are judged against the definitions last applied (recorded in the database), so a change
// of meaning is caught even where the column type stays the same.
import { sql } from 'kysely';
import type { FieldDefinition } from '../config/config-types.ts';
import type { Store } from './create-store.ts';
import { describeFieldType, fieldTypeChange } from './field-type-change.ts';
import { managedIndexColumn, type ColumnSpec, type IndexSpec, type TableSpec } from './resource-columns.ts';
import type { SearchIndexSpec } from './search-index.ts';

/** One line of a plan. */
export interface SchemaChange {
  text: string;
  /** Why the change can lose or reinterpret stored data: applied only with --allow-destructive. */
  destructive?: string;
  /** Why the change cannot be applied at all until the data is fixed. */
  blocked?: string;
}

export interface ForeignKeyChange {
  column: string;
  /** The constraint to drop first (PostgreSQL names them). */
  existingName?: string;
  /** The column keeps no foreign key. */
  remove: boolean;
}

/** What to do to one resource's table. */
export interface TablePlan {
  table: string;
  /** Unique indexes leave soft-deleted rows out. */
  softDelete: boolean;
  create: boolean;
  /** The columns and indexes the table should end with. */
  columns: ColumnSpec[];
  indexes: IndexSpec[];
  add: string[];
  /** Retyped keeping every value (integer → number). */
  widen: string[];
  /** Retyped by emptying the column (a destructive change). */
  reset: string[];
  drop: string[];
  /** Encoded default values written into every existing row of added or reset columns. */
  fill: Map<string, unknown>;
  dropIndexes: string[];
  createIndexes: IndexSpec[];
  foreignKeys: ForeignKeyChange[];
  /** SQLite cannot drop a referenced column or change a foreign key in place: the table is rebuilt. */
  rebuild: boolean;
  /** The full-text index: dropped first where one is there and must change, made last where wanted. */
  search: SearchIndexChange | undefined;
}

export interface SearchIndexChange {
  drop: boolean;
  create: SearchIndexSpec | undefined;
}

export interface SchemaPlan {
  tables: TablePlan[];
  changes: SchemaChange[];
}

/** The field definitions last applied, by resource name, then by field name. */
export type PreviousFields = ReadonlyMap<string, ReadonlyMap<string, FieldDefinition>>;

export async function planSchema(
  store: Store,
  specs: readonly TableSpec[],
  previous: PreviousFields,
): Promise<SchemaPlan> {
  const tables: TablePlan[] = [];
  const changes: SchemaChange[] = [];
  for (const spec of specs) {
    tables.push(await planTable(store, spec, previous.get(spec.name), changes));
  }
  return { tables, changes };
}

async function planTable(
  store: Store,
  spec: TableSpec,
  previous: ReadonlyMap<string, FieldDefinition> | undefined,
  changes: SchemaChange[],
): Promise<TablePlan> {
  const { db, dialect } = store;
  const table = spec.table;
  const current = await dialect.listColumns(db, table);
  const plan: TablePlan = {
    table,
    softDelete: spec.softDelete,
    create: current.length === 0,
    columns: spec.columns,
    indexes: spec.indexes,
    add: [],
    widen: [],
    reset: [],
    drop: [],
    fill: new Map(),
    dropIndexes: [],
    createIndexes: [],
    foreignKeys: [],
    rebuild: false,
    search: undefined,
  };
  if (plan.create) {
    plan.createIndexes = plan.indexes;
    changes.push({ text: `create table ${table}` });
    planSearchIndex(store, plan, spec.search, null, changes);
    return plan;
  }

  let rows: boolean | undefined;
  const hasRows = async () => (rows ??= (await rowCount(store, table, 1)) > 0);
  const existing = new Map(current.map((c) => [c.name, c]));
  for (const column of plan.columns) {
    const found = existing.get(column.name);
    const field = spec.fields.get(column.name);
    const defaultValue = field?.definition.default;
    const fillText =
      defaultValue === undefined ? '' : `, existing rows get the default ${JSON.stringify(defaultValue)}`;
    if (defaultValue !== undefined && field)
      plan.fill.set(column.name, dialect.encode(column.kind, field.defaultValue));
    const type = field ? describeFieldType(field.definition) : dialect.columnType(column.kind);
    if (!found) {
      plan.add.push(column.name);
      const change: SchemaChange = { text: `add column ${table}.${column.name} (${type})${fillText}` };
      if (field?.required && defaultValue === undefined && (await hasRows())) {
        change.destructive = 'existing rows would have no value for this required field (give it a default)';
      }
      changes.push(change);
      continue;
    }
    const before = previous?.get(column.name);
    if (field && before) {
      const judged = fieldTypeChange(before, field.definition);
      if (judged.kind === 'widen') {
        if (!dialect.columnMatches(column.kind, found)) plan.widen.push(column.name);
        changes.push({
          text: `retype column ${table}.${column.name}: ${describeFieldType(before)} → ${type}, values kept`,
        });
      } else if (judged.kind === 'reinterpret') {
        plan.reset.push(column.name);
        changes.push({
          text: `retype column ${table}.${column.name}: ${describeFieldType(before)} → ${type}, emptying it${fillText}`,
          destructive: judged.reason,
        });
      }
    } else if (!dialect.columnMatches(column.kind, found)) {
      // Nothing recorded about the field: only the column type can tell.
      plan.reset.push(column.name);
      changes.push({
        text: `retype column ${table}.${column.name}: ${found.dataType} → ${dialect.columnType(column.kind)}, emptying it${fillText}`,
        destructive: `the column holds ${found.dataType} values`,
      });
    }
  }
  const wanted = new Set(plan.columns.map((c) => c.name));
  for (const column of current) {
    if (column.name === 'id' || wanted.has(column.name) || dialect.search.ownColumns.has(column.name)) continue;
    plan.drop.push(column.name);
    changes.push({ text: `drop column ${table}.${column.name}`, destructive: 'its values are lost' });
  }
  for (const name of [...plan.fill.keys()]) {
    if (!plan.add.includes(name) && !plan.reset.includes(name)) plan.fill.delete(name);
  }

  await planIndexes(store, plan, changes);
  await planForeignKeys(store, plan, changes);
  plan.rebuild =
    dialect.name === 'sqlite' && (plan.drop.length > 0 || plan.reset.length > 0 || plan.foreignKeys.length > 0);
  planSearchIndex(store, plan, spec.search, await dialect.search.current(db, table), changes);
  return plan;
}

/**
 * The search index changes when its columns or language do. It is made again, from the rows, whenever
 * the table's columns are rebuilt, dropped or retyped too: SQLite's index follows rowids a rebuild
 * renumbers, and PostgreSQL's generated column reads the columns being changed. Its content is derived
 * from the rows, so no change of it loses data.
 */
function planSearchIndex(
  store: Store,
  plan: TablePlan,
  wanted: SearchIndexSpec | undefined,
  current: string | null,
  changes: SchemaChange[],
): void {
  const search = store.dialect.search;
  const columnsChange = plan.rebuild || plan.drop.length + plan.reset.length + plan.widen.length > 0;
  const same = wanted !== undefined && current === search.signature(wanted);
  if (current === null && wanted === undefined) return;
  if (same && !columnsChange) return;
  plan.search = { drop: current !== null, create: wanted };
  const what = (spec: SearchIndexSpec) => `${plan.table} (${spec.columns.join(', ')}; language ${spec.language})`;
  if (!wanted) changes.push({ text: `drop search index on ${plan.table}` });
  else if (current === null) changes.push({ text: `create search index on ${what(wanted)}` });
  else changes.push({ text: `rebuild search index on ${what(wanted)}` });
}

async function planIndexes(store: Store, plan: TablePlan, changes: SchemaChange[]): Promise<void> {
  const { table } = plan;
  // A dropped or emptied column loses its indexes with it; the ones still wanted are made again.
  const gone = new Set([...plan.drop, ...plan.reset]);
  const present = new Set(await store.dialect.listIndexes(store.db, table));
  const wanted = new Set(plan.indexes.map((i) => i.name));
  for (const name of present) {
    const column = managedIndexColumn(table, name);
    if (column === undefined || wanted.has(name) || gone.has(column)) continue;
    plan.dropIndexes.push(name);
    changes.push({ text: `drop index ${name}` });
  }
  // A unique index leaves soft-deleted rows out (create-resource-table.ts): turning soft delete on or off
  // changes its condition. (PostgreSQL would drop it silently along with `deleted_at`.)
  const softDeleteChanged = plan.add.includes('deleted_at') || plan.drop.includes('deleted_at');
  for (const index of plan.indexes) {
    if (softDeleteChanged && index.unique && present.has(index.name) && !gone.has(index.column)) {
      plan.dropIndexes.push(index.name);
      plan.createIndexes.push(index);
      changes.push(
        await checkedUnique(
          store,
          plan,
          index,
          `recreate unique index ${index.name} (soft delete turned ${plan.softDelete ? 'on' : 'off'})`,
        ),
      );
      continue;
    }
    if (present.has(index.name) && !gone.has(index.column)) continue;
    plan.createIndexes.push(index);
    if (index.unique && plan.fill.has(index.column) && (await rowCount(store, table, 2)) > 1) {
      // Every existing row would get the same default.
      changes.push({
        text: `create unique index ${index.name} on ${table}.${index.column}`,
        blocked: 'the existing rows would all get the same default',
      });
      continue;
    }
    if (gone.has(index.column)) continue;
    const text = `create ${index.unique ? 'unique ' : ''}index ${index.name} on ${table}.${index.column}`;
    changes.push(
      index.unique && !plan.add.includes(index.column) ? await checkedUnique(store, plan, index, text) : { text },
    );
  }
}

/** Rows in the table, counted up to `limit`. */
async function rowCount(store: Store, table: string, limit: number): Promise<number> {
  return (await store.db.selectFrom(table).select('id').limit(limit).execute()).length;
}

/** A change making a unique index, blocked while stored rows share a value. */
async function checkedUnique(store: Store, plan: TablePlan, index: IndexSpec, text: string): Promise<SchemaChange> {
  const duplicate = await firstDuplicate(store, plan, index.column);
  return duplicate === undefined
    ? { text }
    : { text, blocked: `several rows have the value ${JSON.stringify(duplicate)}` };
}

async function firstDuplicate(store: Store, plan: TablePlan, column: string): Promise<unknown> {
  const live = plan.softDelete && !plan.add.includes('deleted_at') ? sql`and deleted_at is null` : sql``;
  const { rows } = await sql<{ value: unknown }>`
    select ${sql.ref(column)} as value from ${sql.table(plan.table)} where ${sql.ref(column)} is not null ${live}
    group by ${sql.ref(column)} having count(*) > 1 limit 1`.execute(store.db);
  return rows.length > 0 ? rows[0]!.value : undefined;
}

async function planForeignKeys(store: Store, plan: TablePlan, changes: SchemaChange[]): Promise<void> {
  const { table } = plan;
  const gone = new Set([...plan.drop, ...plan.reset, ...plan.add]);
  const existing = new Map((await store.dialect.listForeignKeys(store.db, table)).map((k) => [k.column, k]));
  for (const column of plan.columns) {
    // New and emptied columns get their foreign key with them.
    if (gone.has(column.name)) continue;
    const key = existing.get(column.name);
    const target = column.references;
    if (!target) {
      if (!key) continue;
      plan.foreignKeys.push({ column: column.name, existingName: key.name, remove: true });
      changes.push({ text: `drop foreign key ${table}.${column.name} → ${key.target}` });
      continue;
    }
    if (key && key.target === target.table && key.onDelete === target.onDelete) continue;
    plan.foreignKeys.push({ column: column.name, existingName: key?.name, remove: false });
    changes.push({
      text: key
        ? `change foreign key ${table}.${column.name} → ${target.table}: on delete ${key.onDelete} → ${target.onDelete}`
        : `add foreign key ${table}.${column.name} → ${target.table} (on delete ${target.onDelete})`,
    });
  }
}

/** The plan as text, one change a line; destructive and blocked changes say so. */
export function formatSchemaChange(change: SchemaChange): string {
  if (change.blocked) return `x ${change.text} (cannot apply: ${change.blocked})`;
  if (change.destructive) return `! ${change.text} (destructive: ${change.destructive})`;
  return `  ${change.text}`;
}

// Makes the database match the resource definitions: creates tables, adds columns and indexes.
// Anything that would lose data (dropping or retyping a column) is refused unless explicitly allowed.
import { sql, type CreateTableBuilder } from 'kysely';
import type { Resource } from '../resources/resource.ts';
import type { ResourceRegistry } from '../resources/resource-registry.ts';
import type { StorageKind } from './storage-kind.ts';
import type { Store } from './create-store.ts';
import type { Db, ExistingColumn } from './store-dialect.ts';

export class DestructiveChangeError extends Error {
  constructor(readonly changes: string[]) {
    super(
      `Applying the configuration would lose data:\n${changes.map((c) => `  - ${c}`).join('\n')}\n` +
        'Start with --allow-destructive to apply it anyway.',
    );
    this.name = 'DestructiveChangeError';
  }
}

interface ColumnPlan {
  name: string;
  kind: StorageKind;
  /** Target resource table for relations. */
  references?: { table: string; onDelete: 'restrict' | 'cascade' | 'set null' };
}

function columnsOf(resource: Resource): ColumnPlan[] {
  const columns: ColumnPlan[] = [
    { name: 'created_at', kind: 'timestamp' },
    { name: 'updated_at', kind: 'timestamp' },
  ];
  if (resource.softDelete) columns.push({ name: 'deleted_at', kind: 'timestamp' });
  for (const field of resource.fields.values()) {
    const plan: ColumnPlan = { name: field.name, kind: field.storage };
    if (field.definition.type === 'relation' && field.definition.resource) {
      const action = field.definition.onDelete ?? 'restrict';
      plan.references = { table: field.definition.resource, onDelete: action === 'set_null' ? 'set null' : action };
    }
    columns.push(plan);
  }
  return columns;
}

function indexesOf(resource: Resource): { name: string; column: string; unique: boolean }[] {
  const indexes: { name: string; column: string; unique: boolean }[] = [];
  for (const field of resource.fields.values()) {
    if (field.definition.unique) indexes.push({ name: `uq_${resource.table}_${field.name}`, column: field.name, unique: true });
    else if (field.sortable || field.definition.type === 'relation') {
      indexes.push({ name: `ix_${resource.table}_${field.name}`, column: field.name, unique: false });
    }
  }
  indexes.push({ name: `ix_${resource.table}_created_at`, column: 'created_at', unique: false });
  return indexes;
}

export async function applyResourceSchema(store: Store, registry: ResourceRegistry, options: { allowDestructive: boolean }): Promise<void> {
  const { db, dialect } = store;
  const resources = registry.all();
  const existing = new Map<string, ExistingColumn[]>();
  for (const resource of resources) existing.set(resource.name, await dialect.listColumns(db, resource.table));

  const destructive: string[] = [];
  for (const resource of resources) {
    const current = existing.get(resource.name) ?? [];
    if (current.length === 0) continue;
    const wanted = new Map(columnsOf(resource).map((c) => [c.name, c]));
    for (const column of current) {
      if (column.name === 'id') continue;
      const plan = wanted.get(column.name);
      if (!plan) destructive.push(`drop column ${resource.table}.${column.name} (no longer defined)`);
      else if (!dialect.columnMatches(plan.kind, column)) {
        destructive.push(`retype column ${resource.table}.${column.name} from ${column.dataType} to ${dialect.columnType(plan.kind)}`);
      }
    }
  }
  if (destructive.length > 0 && !options.allowDestructive) throw new DestructiveChangeError(destructive);

  await db.transaction().execute(async (trx) => {
    for (const resource of resources) {
      await applyResource(trx, store, resource, existing.get(resource.name) ?? []);
    }
    if (dialect.name === 'postgres') {
      for (const resource of resources) await addPostgresForeignKeys(trx, resource);
    }
  });
}

async function applyResource(db: Db, store: Store, resource: Resource, current: ExistingColumn[]): Promise<void> {
  const { dialect } = store;
  const columns = columnsOf(resource);
  // SQLite can only declare foreign keys inline; PostgreSQL gets them afterwards so order does not matter.
  const inlineReferences = dialect.name === 'sqlite';
  if (current.length === 0) {
    let create: CreateTableBuilder<string, string> = db.schema.createTable(resource.table).addColumn('id', 'text', (c) => c.primaryKey());
    for (const column of columns) {
      create = create.addColumn(column.name, sql.raw(dialect.columnType(column.kind)), (c) => {
        let built = column.name === 'created_at' || column.name === 'updated_at' ? c.notNull() : c;
        if (inlineReferences && column.references) {
          built = built.references(`${column.references.table}.id`).onDelete(column.references.onDelete);
        }
        return built;
      });
    }
    await create.execute();
  } else {
    const byName = new Map(current.map((c) => [c.name, c]));
    for (const column of columns) {
      const found = byName.get(column.name);
      if (found && dialect.columnMatches(column.kind, found)) continue;
      if (found) await db.schema.alterTable(resource.table).dropColumn(column.name).execute();
      await db.schema
        .alterTable(resource.table)
        .addColumn(column.name, sql.raw(dialect.columnType(column.kind)), (c) =>
          inlineReferences && column.references ? c.references(`${column.references.table}.id`).onDelete(column.references.onDelete) : c,
        )
        .execute();
    }
    const wanted = new Set(columns.map((c) => c.name));
    for (const column of current) {
      if (column.name !== 'id' && !wanted.has(column.name)) {
        await db.schema.alterTable(resource.table).dropColumn(column.name).execute();
      }
    }
  }
  const presentIndexes = new Set(await dialect.listIndexes(db, resource.table));
  for (const index of indexesOf(resource)) {
    if (presentIndexes.has(index.name)) continue;
    let builder = db.schema.createIndex(index.name).on(resource.table).column(index.column);
    if (index.unique) builder = builder.unique();
    // Soft-deleted rows must not hold on to unique values.
    if (index.unique && resource.softDelete) builder = builder.where(sql.ref('deleted_at'), 'is', null);
    await builder.execute();
  }
}

async function addPostgresForeignKeys(db: Db, resource: Resource): Promise<void> {
  for (const column of columnsOf(resource)) {
    if (!column.references) continue;
    const name = `fk_${resource.table}_${column.name}`;
    const { rows } = await sql<{ n: number }>`
      select count(*)::int as n from information_schema.table_constraints
      where constraint_schema = current_schema() and constraint_name = ${name}`.execute(db);
    if ((rows[0]?.n ?? 0) > 0) continue;
    await db.schema
      .alterTable(resource.table)
      .addForeignKeyConstraint(name, [column.name], column.references.table, ['id'], (c) => c.onDelete(column.references!.onDelete))
      .execute();
  }
}

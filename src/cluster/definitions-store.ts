// The resource definitions last applied to the database, by whichever process applied them. A process
// that applies a config records it here; the others read it when told, so every node serves the
// schema the database actually has. Each change is a new version, which keeps a short history for operators.
import type { Db, StoreDialect } from '../store/store-dialect.ts';
import { definitionsHash, type ResourceDefinitions } from '../resources/resource-registry.ts';
import { sequenceColumn } from '../store/sequence-column.ts';

export const DEFINITIONS_TABLE = 'svc_resource_definitions';

export interface AppliedDefinitions {
  version: number;
  hash: string;
  definitions: ResourceDefinitions;
}

/** When and from which file a set of definitions was applied, as recorded for every node. */
export interface AppliedRecord {
  version: number;
  appliedAt: string;
  /** The config file the applying process read; null when it was given no file (an embedding program). */
  source: string | null;
}

export async function createDefinitionsTable(db: Db, dialect: StoreDialect): Promise<void> {
  await db.schema
    .createTable(DEFINITIONS_TABLE)
    .ifNotExists()
    .addColumn('version', sequenceColumn(dialect))
    .addColumn('hash', 'text', (c) => c.notNull())
    .addColumn('definitions', 'text', (c) => c.notNull())
    .addColumn('applied_at', 'text', (c) => c.notNull())
    .addColumn('source', 'text')
    .execute();
  await addSourceColumn(db, dialect);
}

/** Tables made before `source` was recorded get it (null for their rows); nodes may race to add it. */
async function addSourceColumn(db: Db, dialect: StoreDialect): Promise<void> {
  const has = async () => (await dialect.listColumns(db, DEFINITIONS_TABLE)).some((c) => c.name === 'source');
  if (await has()) return;
  try {
    await db.schema.alterTable(DEFINITIONS_TABLE).addColumn('source', 'text').execute();
  } catch (error) {
    if (!(await has())) throw error;
  }
}

/** The record of a version, or the latest of the definitions whose hash is given; null when there is none. */
export async function appliedRecord(
  db: Db,
  which: { version: number } | { hash: string },
): Promise<AppliedRecord | null> {
  const query = db.selectFrom(DEFINITIONS_TABLE).select(['version', 'applied_at', 'source']);
  const row = await ('version' in which
    ? query.where('version', '=', which.version)
    : query.where('hash', '=', which.hash)
  )
    .orderBy('version', 'desc')
    .limit(1)
    .executeTakeFirst();
  if (!row) return null;
  return {
    version: Number(row.version),
    appliedAt: String(row.applied_at),
    source: row.source === null || row.source === undefined ? null : String(row.source),
  };
}

export async function latestDefinitions(db: Db): Promise<AppliedDefinitions | null> {
  const row = await db
    .selectFrom(DEFINITIONS_TABLE)
    .select(['version', 'hash', 'definitions'])
    .orderBy('version', 'desc')
    .limit(1)
    .executeTakeFirst();
  if (!row) return null;
  return {
    version: Number(row.version),
    hash: String(row.hash),
    definitions: JSON.parse(String(row.definitions)) as ResourceDefinitions,
  };
}

/** Records `definitions` as the applied ones; false when they already were (nothing to tell the others). */
export async function recordAppliedDefinitions(
  db: Db,
  definitions: ResourceDefinitions,
  source: string | null = null,
): Promise<boolean> {
  const hash = definitionsHash(definitions);
  const latest = await db
    .selectFrom(DEFINITIONS_TABLE)
    .select('hash')
    .orderBy('version', 'desc')
    .limit(1)
    .executeTakeFirst();
  if (latest?.hash === hash) return false;
  await db
    .insertInto(DEFINITIONS_TABLE)
    .values({ hash, definitions: JSON.stringify(definitions), applied_at: new Date().toISOString(), source })
    .execute();
  return true;
}

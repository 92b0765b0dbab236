// Full-text search on PostgreSQL: a stored generated `tsvector` column over the searchable columns with
// a GIN index, computed by the database in every write's own statement. A search over fewer columns
// than the index holds (a caller who may not read them all) computes its vector from those columns
// alone, so a column the caller cannot read never decides a match.
import { sql, type RawBuilder, type SqlBool } from 'kysely';
import type { SearchIndexSpec, SearchDialect, SearchMatch, SearchTerm } from '../search-index.ts';
import type { Db } from '../store-dialect.ts';

/** The generated column: a field name starts with a letter, so none can take it. */
const COLUMN = '_search';

function indexName(table: string): string {
  return `svc_search_${table}`;
}

/** A configuration name from the fixed list in config/search-languages.ts, as a literal. */
function configuration(spec: SearchIndexSpec): RawBuilder<unknown> {
  return sql`${sql.lit(spec.language)}::regconfig`;
}

/** The text of `columns` as one document; the generated column and a narrower search read it alike. */
function vectorOf(table: string | null, spec: SearchIndexSpec, columns: readonly string[]): RawBuilder<unknown> {
  const texts = columns.map((c) => sql`coalesce(${sql.ref(table ? `${table}.${c}` : c)}, '')`);
  return sql`to_tsvector(${configuration(spec)}, ${sql.join(texts, sql` || ' ' || `)})`;
}

/**
 * Each term through the function that reads it as plain text (no operator in it means anything); a
 * prefix, of letters, digits and marks only, through to_tsquery with `:*`.
 */
function termQuery(spec: SearchIndexSpec, term: SearchTerm): RawBuilder<unknown> {
  const config = configuration(spec);
  switch (term.kind) {
    case 'word':
      return sql`plainto_tsquery(${config}, ${term.word})`;
    case 'phrase':
      return sql`phraseto_tsquery(${config}, ${term.words.join(' ')})`;
    case 'prefix':
      return sql`to_tsquery(${config}, ${`${term.word}:*`})`;
  }
}

function queryOf(match: SearchMatch): RawBuilder<unknown> {
  return sql`(${sql.join(
    match.terms.map((term) => termQuery(match.index, term)),
    sql` && `,
  )})`;
}

function searchedVector(table: string, match: SearchMatch): RawBuilder<unknown> {
  const whole =
    match.columns.length === match.index.columns.length &&
    match.columns.every((column, i) => column === match.index.columns[i]);
  return whole ? sql.ref(`${table}.${COLUMN}`) : vectorOf(table, match.index, match.columns);
}

export const postgresSearch: SearchDialect = {
  ownColumns: new Set([COLUMN]),
  matches(table: string, match: SearchMatch): RawBuilder<SqlBool> {
    return sql<SqlBool>`${searchedVector(table, match)} @@ ${queryOf(match)}`;
  },
  rank(table: string, match: SearchMatch): RawBuilder<number> {
    return sql<number>`ts_rank(${searchedVector(table, match)}, ${queryOf(match)})`;
  },
  async current(db: Db, table: string): Promise<string | null> {
    const { rows } = await sql<{ note: string | null }>`
      select col_description(a.attrelid, a.attnum) as note from pg_attribute a
      where a.attrelid = to_regclass(${table}) and a.attname = ${COLUMN} and not a.attisdropped`.execute(db);
    if (rows.length === 0) return null;
    return rows[0]!.note ?? '';
  },
  signature: (spec: SearchIndexSpec) => `svc search index: ${spec.language}: ${spec.columns.join(',')}`,
  async create(db: Db, table: string, spec: SearchIndexSpec): Promise<void> {
    const on = sql.table(table);
    await sql`alter table ${on} add column ${sql.ref(COLUMN)} tsvector generated always as (${vectorOf(null, spec, spec.columns)}) stored`.execute(
      db,
    );
    await sql`create index ${sql.ref(indexName(table))} on ${on} using gin (${sql.ref(COLUMN)})`.execute(db);
    await sql`comment on column ${sql.ref(`${table}.${COLUMN}`)} is ${sql.lit(postgresSearch.signature(spec))}`.execute(
      db,
    );
  },
  async drop(db: Db, table: string): Promise<void> {
    // The index goes with its column.
    await sql`alter table ${sql.table(table)} drop column if exists ${sql.ref(COLUMN)}`.execute(db);
  },
};

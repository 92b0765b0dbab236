// Full-text search as store/ is told it (docs/search.md): which columns of a table are indexed and in
// which language, the terms of one search, and what each database does with them (SearchDialect).
import type { Kysely, RawBuilder, SqlBool } from 'kysely';
import type { SearchLanguage } from '../config/search-languages.ts';

/** store-dialect.ts's Db, spelled out: that file names this one, and a file may not import one that imports it. */
type Db = Kysely<Record<string, Record<string, unknown>>>;

/** A table's search index: the columns it covers, in order, and their language. */
export interface SearchIndexSpec {
  columns: readonly string[];
  language: SearchLanguage;
}

/**
 * One term of a search, already split into words of letters, digits and marks only (query/parse-search.ts),
 * so no character of it means anything to a database's query syntax: a word, a word's beginning
 * (`word*`), or words that must follow each other (`"a phrase"`).
 */
export type SearchTerm =
  | { kind: 'word'; word: string }
  | { kind: 'prefix'; word: string }
  | { kind: 'phrase'; words: string[] };

/** A search over some of the index's columns: a caller's readable ones (the rest must not decide a match). */
export interface SearchMatch {
  index: SearchIndexSpec;
  /** The columns searched: some of `index.columns`, never empty. */
  columns: readonly string[];
  /** Every term must match (AND). */
  terms: readonly SearchTerm[];
}

export interface SearchDialect {
  /** A condition on `table`'s rows: the row matches every term in the searched columns. */
  matches(table: string, match: SearchMatch): RawBuilder<SqlBool>;
  /**
   * `select count(*) as "total"` of the rows matching, read from the index alone, where the index is
   * a table of its own that holds exactly the table's rows (SQLite's FTS5); undefined where it is not.
   * Only for a count with no other condition: it reads no row of `table`.
   */
  countMatches?(table: string, match: SearchMatch): RawBuilder<{ total: number }>;
  /** A row's relevance to the search, larger for better matches; only meaningful on matching rows. */
  rank(table: string, match: SearchMatch): RawBuilder<number>;
  /** What the index of `table` was made from (compared with `signature` to plan a change); null: no index. */
  current(db: Db, table: string): Promise<string | null>;
  /** The mark an index made from `spec` carries. */
  signature(spec: SearchIndexSpec): string;
  /** Makes the index of `table` from its present rows, and keeps it exact in every later write. */
  create(db: Db, table: string, spec: SearchIndexSpec): Promise<void>;
  /** Removes the index of `table` (nothing when it has none). */
  drop(db: Db, table: string): Promise<void>;
  /** Columns the index adds to the table itself, which the schema planner must leave alone. */
  readonly ownColumns: ReadonlySet<string>;
}

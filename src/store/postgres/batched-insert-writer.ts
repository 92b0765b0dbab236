// A batch's set-aside inserts on PostgreSQL (batched-inserts.ts): the outbox events first, then every
// other table's rows, as one multi-row statement with a data-modifying WITH per table, split only where
// a statement would pass PostgreSQL's limit of 65,535 parameters. A hundred creates with their events
// go in one round trip instead of two hundred.
import type { CompiledQuery } from 'kysely';
import type { Db } from '../store-dialect.ts';
import type { BatchedInsertWriter } from '../batched-inserts.ts';
import type { ColumnStorage, StatementReturning } from '../one-statement-writes.ts';
import { compileInsertTogether, definedColumns, type TableRows } from '../write-statements.ts';
import type { RunStatement } from './one-statement-writer.ts';
import { rowAsStored } from './stored-row.ts';

type Row = Record<string, unknown>;

/** Parameters per statement at most: PostgreSQL's protocol counts them in 16 bits. */
export const MAX_PARAMETERS = 65_535;

/**
 * Put before each statement's text: a batch's statements differ in their row counts from one batch
 * to the next, so they run unnamed rather than take names from the process's bounded set of prepared
 * statements (naming-client.ts names only texts that begin with a data statement's keyword).
 */
const UNNAMED = '/* batched inserts */ ';

/** One statement's share of the parts: consecutive rows of each, in order. */
interface Statement {
  parts: TableRows[];
  /** Whether it holds outbox rows (then its first part is theirs). */
  signalled: boolean;
}

/** A row's parameters as Kysely binds a multi-row insert: every column any row of its part names. */
function columnCount(rows: readonly Row[]): number {
  const columns = new Set<string>();
  for (const row of rows) for (const column of definedColumns(row)) columns.add(column);
  return columns.size;
}

/** `parts` in order, cut into statements of at most `limit` parameters each. */
export function packStatements(signalled: TableRows, others: readonly TableRows[], limit: number): Statement[] {
  const statements: Statement[] = [];
  let current: Statement = { parts: [], signalled: false };
  let used = 0;
  const all = [signalled, ...others];
  for (let p = 0; p < all.length; p++) {
    const { table, rows } = all[p]!;
    // Counted per part, over all its rows: a slice never needs more columns than its whole part.
    const width = Math.max(1, columnCount(rows));
    let from = 0;
    while (from < rows.length) {
      if (used > 0 && used + width > limit) {
        statements.push(current);
        current = { parts: [], signalled: false };
        used = 0;
      }
      // At least one row: a statement of its own for a row wider than the limit, which the database refuses.
      const take = Math.max(1, Math.min(rows.length - from, Math.floor((limit - used) / width)));
      current.parts.push({ table, rows: rows.slice(from, from + take) });
      if (p === 0) current.signalled = true;
      used += take * width;
      from += take;
    }
  }
  if (current.parts.length > 0) statements.push(current);
  return statements;
}

export class PostgresBatchedInsertWriter implements BatchedInsertWriter {
  readonly #db: Db;
  readonly #execute: RunStatement;
  readonly #returning: StatementReturning;
  readonly #limit: number;

  /** `returning`: the commit signal the outbox rows carry, read when a statement is built. */
  constructor(db: Db, execute: RunStatement, returning: StatementReturning, limit = MAX_PARAMETERS) {
    this.#db = db;
    this.#execute = execute;
    this.#returning = returning;
    this.#limit = limit;
  }

  rowAsStored(storage: ColumnStorage, columns: readonly string[], encoded: Row): Row {
    return rowAsStored(storage, columns, encoded);
  }

  async insert(trx: Db, signalled: TableRows, others: readonly TableRows[]): Promise<void> {
    const nonEmpty = others.filter((part) => part.rows.length > 0);
    for (const statement of packStatements(signalled, nonEmpty, this.#limit)) {
      const compiled = compileInsertTogether(
        this.#db,
        statement.parts,
        statement.signalled ? this.#returning() : undefined,
      );
      const unnamed: CompiledQuery = { ...compiled, sql: `${UNNAMED}${compiled.sql}` };
      await this.#execute(trx, unnamed);
    }
  }
}

// PostgreSQL writes that each go in one statement (a create with its event and deliveries; a change
// at the version read; an insert under its references) are sent together with the other writes of
// the same event-loop pass (statement-batcher.ts): a create batch as one multi-row insert per table, a
// change batch as one statement with a WITH per change. Each write still gets its own answer: its
// row, or no row when its own conditions failed (the caller then writes it the usual way).
import { sql, type CompiledQuery } from 'kysely';
import type { Db } from '../store-dialect.ts';
import { insertTogetherStatement, type TableRows } from '../write-statements.ts';
import type {
  ColumnStorage,
  ConditionalChange,
  OneStatementWriter,
  StatementReturning,
} from '../one-statement-writes.ts';
import { conditionalChangeStatement, conditionalChangesStatement } from './conditional-change-statements.ts';
import { StatementBatcher } from './statement-batcher.ts';
import { rowAsStored } from './stored-row.ts';

type Row = Record<string, unknown>;

/** A create waiting to share its statement: the row as sent, and its event's rows (the event's first). */
interface GroupedCreate {
  table: string;
  encoded: Row;
  parts: TableRows[];
  returning: readonly string[];
}

/** A conditional change waiting to share its statement, with its event's rows and the columns it answers. */
interface GroupedChange {
  change: ConditionalChange;
  parts: TableRows[];
  returning: readonly string[];
}

/**
 * Writes per shared statement at most. A create brings ~40 parameters with its event and one
 * delivery, far below PostgreSQL's 65,535; past ~16 a larger group saved little more client CPU
 * (measured with pg alone: 99-144 µs per create alone, 25 in groups of 8, 18-19 in groups of 16).
 */
const MAX_GROUP = 32;

/** Runs a compiled statement on the database (the store's executeIn). */
export type RunStatement = (db: Db, query: CompiledQuery) => Row[] | Promise<Row[]>;

export class PostgresOneStatementWriter implements OneStatementWriter {
  /** Every update and re-insert of a row changes its xmin. */
  readonly rowVersion = sql<string>`xmin::text`;
  readonly #db: Db;
  readonly #execute: RunStatement;
  readonly #returning: StatementReturning;
  readonly #creates = new StatementBatcher<readonly string[], GroupedCreate, Row[]>({
    runGroup: (creates) => this.#createGroup(creates),
    runOne: async (create) => this.#createOne(create),
    maxGroup: MAX_GROUP,
  });
  readonly #changes = new StatementBatcher<string, GroupedChange, Row[]>({
    runGroup: (changes) => this.#changeGroup(changes),
    runOne: async (change) => this.#changeOne(change),
    maxGroup: MAX_GROUP,
  });

  /** `returning`: what each statement answers from the event's row (its NOTIFY), read when a statement is built. */
  constructor(db: Db, execute: RunStatement, returning: StatementReturning) {
    this.#db = db;
    this.#execute = execute;
    this.#returning = returning;
  }

  rowAsStored(storage: ColumnStorage, columns: readonly string[], encoded: Row): Row {
    return rowAsStored(storage, columns, encoded);
  }

  /**
   * Inserts `encoded` into `table` with `parts`; answers its row (`returning` columns). Creates share a
   * statement when they pass the same `returning` array: one per table and column list (the caller's
   * own), so a create made under a reloaded definition never shares with one made under the old.
   */
  create(table: string, encoded: Row, parts: TableRows[], returning: readonly string[]): Promise<Row[]> {
    return this.#creates.submit(returning, { table, encoded, parts, returning });
  }

  /** Makes `change` with `parts` if its conditions hold: its row (`returning` columns), or none. */
  change(change: ConditionalChange, parts: TableRows[], returning: readonly string[]): Promise<Row[]> {
    const columns =
      change.kind === 'insert' ? Object.keys(change.row) : change.kind === 'update' ? Object.keys(change.values) : [];
    const requires =
      change.kind === 'delete' ? [] : change.requires.map(({ table, live }) => `${table}${live ? '+' : ''}`);
    // Changes share a statement when they are the same kind of change to the same columns.
    const key = `${change.kind}\u0000${change.table}\u0000${columns.join('\u0000')}\u0001${requires.join('\u0000')}\u0001${returning.join('\u0000')}`;
    return this.#changes.submit(key, { change, parts, returning });
  }

  /** Creates into one table in one statement: their events first, then each table's rows, the records last. */
  async #createGroup(creates: GroupedCreate[]): Promise<Row[][]> {
    const { table, returning } = creates[0]!;
    const byTable = new Map<string, Row[]>();
    for (const { parts } of creates) {
      for (const { table, rows } of parts) {
        const kept = byTable.get(table);
        if (kept) kept.push(...rows);
        else byTable.set(table, [...rows]);
      }
    }
    const parts: TableRows[] = [...byTable].map(([table, rows]) => ({ table, rows }));
    parts.push({ table, rows: creates.map(({ encoded }) => encoded) });
    const db = this.#db;
    const rows = await this.#execute(db, insertTogetherStatement(db, parts, this.#returning(), returning));
    const byId = new Map(rows.map((row) => [String(row.id), row]));
    return creates.map(({ encoded }) => {
      const row = byId.get(String(encoded.id));
      if (!row) throw new Error(`A grouped create into ${table} did not return its row`);
      return [row];
    });
  }

  #createOne({ table, encoded, parts, returning }: GroupedCreate): Row[] | Promise<Row[]> {
    const db = this.#db;
    return this.#execute(
      db,
      insertTogetherStatement(db, [...parts, { table, rows: [encoded] }], this.#returning(), returning),
    );
  }

  /**
   * Conditional changes of one shape in one statement, in the order of their rows' ids (so two groups
   * lock rows in one order). A second change to a row already in the group is left out, as if its
   * conditions had failed: it then runs the usual way, after this statement.
   */
  async #changeGroup(changes: GroupedChange[]): Promise<Row[][]> {
    const idOf = ({ change }: GroupedChange) => String(change.kind === 'insert' ? change.row.id : change.id);
    const first = new Map<string, GroupedChange>();
    for (const entry of changes) if (!first.has(idOf(entry))) first.set(idOf(entry), entry);
    const ordered = [...first.values()].sort((a, b) => (idOf(a) < idOf(b) ? -1 : 1));
    const db = this.#db;
    const rows = await this.#execute(
      db,
      conditionalChangesStatement(db, ordered, this.#returning(), changes[0]!.returning),
    );
    const byId = new Map(rows.map((row) => [String(row.id), row]));
    return changes.map((entry) => {
      const row = first.get(idOf(entry)) === entry ? byId.get(idOf(entry)) : undefined;
      return row ? [row] : [];
    });
  }

  #changeOne({ change, parts, returning }: GroupedChange): Row[] | Promise<Row[]> {
    const db = this.#db;
    return this.#execute(db, conditionalChangeStatement(db, change, parts, this.#returning(), returning));
  }
}

// PostgreSQL writes that each go in one statement (a create with its event and deliveries; a change
// at the version read; an insert under its references) are sent together with the other writes of
// the same event-loop pass (grouped-writes.ts): a create group as one multi-row insert per table, a
// change group as one statement with a WITH per change. Each write still gets its own answer: its
// row, or no row when its own conditions failed (the caller then writes it the usual way).
import type { Resource } from '../resources/resource.ts';
import type { Store } from '../store/create-store.ts';
import {
  conditionalChangeStatement,
  conditionalChangesStatement,
  insertTogetherStatement,
  type ConditionalChange,
  type TableRows,
} from '../store/write-statements.ts';
import { GroupedWrites } from './grouped-writes.ts';

type Row = Record<string, unknown>;

/** A create waiting to share its statement: the row as sent, and its event's rows (the event's first). */
interface GroupedCreate {
  resource: Resource;
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

export class StatementGroups {
  readonly #store: Store;
  readonly #creates = new GroupedWrites<Resource, GroupedCreate, Row[]>({
    runGroup: (creates) => this.#createGroup(creates),
    runOne: async (create) => this.#createOne(create),
    maxGroup: MAX_GROUP,
  });
  readonly #changes = new GroupedWrites<string, GroupedChange, Row[]>({
    runGroup: (changes) => this.#changeGroup(changes),
    runOne: async (change) => this.#changeOne(change),
    maxGroup: MAX_GROUP,
  });

  /** Each event's row carries the store's commit signal, read when a statement is built. */
  constructor(store: Store) {
    this.#store = store;
  }

  /** Inserts `encoded` into the resource's table with `parts`; answers its row (`returning` columns). */
  create(resource: Resource, encoded: Row, parts: TableRows[], returning: readonly string[]): Promise<Row[]> {
    return this.#creates.submit(resource, { resource, encoded, parts, returning });
  }

  /** Makes `change` with `parts` if its conditions hold: its row (`returning` columns), or none. */
  change(change: ConditionalChange, parts: TableRows[], returning: readonly string[]): Promise<Row[]> {
    const columns = change.kind === 'insert' ? Object.keys(change.row) : change.kind === 'update' ? Object.keys(change.values) : [];
    const requires = change.kind === 'delete' ? [] : change.requires.map(({ table, live }) => `${table}${live ? '+' : ''}`);
    // Changes share a statement when they are the same kind of change to the same columns.
    const key = `${change.kind}\u0000${change.table}\u0000${columns.join('\u0000')}\u0001${requires.join('\u0000')}\u0001${returning.join('\u0000')}`;
    return this.#changes.submit(key, { change, parts, returning });
  }

  /** Creates of one resource in one statement: their events first, then each table's rows, the records last. */
  async #createGroup(creates: GroupedCreate[]): Promise<Row[][]> {
    const { resource, returning } = creates[0]!;
    const byTable = new Map<string, Row[]>();
    for (const { parts } of creates) {
      for (const { table, rows } of parts) {
        const kept = byTable.get(table);
        if (kept) kept.push(...rows);
        else byTable.set(table, [...rows]);
      }
    }
    const parts: TableRows[] = [...byTable].map(([table, rows]) => ({ table, rows }));
    parts.push({ table: resource.table, rows: creates.map(({ encoded }) => encoded) });
    const { db } = this.#store;
    const rows = await this.#store.executeIn(db, insertTogetherStatement(db, parts, this.#store.commitSignal.returning(), returning));
    const byId = new Map(rows.map((row) => [String(row.id), row]));
    return creates.map(({ encoded }) => {
      const row = byId.get(String(encoded.id));
      if (!row) throw new Error(`A grouped create of ${resource.name} did not return its row`);
      return [row];
    });
  }

  #createOne({ resource, encoded, parts, returning }: GroupedCreate): Row[] | Promise<Row[]> {
    const { db } = this.#store;
    return this.#store.executeIn(db, insertTogetherStatement(db, [...parts, { table: resource.table, rows: [encoded] }], this.#store.commitSignal.returning(), returning));
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
    const { db } = this.#store;
    const rows = await this.#store.executeIn(db, conditionalChangesStatement(db, ordered, this.#store.commitSignal.returning(), changes[0]!.returning));
    const byId = new Map(rows.map((row) => [String(row.id), row]));
    return changes.map((entry) => {
      const row = first.get(idOf(entry)) === entry ? byId.get(idOf(entry)) : undefined;
      return row ? [row] : [];
    });
  }

  #changeOne({ change, parts, returning }: GroupedChange): Row[] | Promise<Row[]> {
    const { db } = this.#store;
    return this.#store.executeIn(db, conditionalChangeStatement(db, change, parts, this.#store.commitSignal.returning(), returning));
  }
}

// The creates a batch of writes (RecordService.batch) sets aside, where the store sends many rows in
// few statements (Store.batchedInserts: PostgreSQL, where each statement is a round trip). Each create
// answers at once, its record and event built from the row as the database will store it, as a
// one-statement write does (one-statement-changes.ts); its row, its event and the event's deliveries
// wait here, and go to the database together before the batch's next write of another kind and at its
// end. A set-aside row the database refuses (a unique value taken) fails its whole statement, which
// cannot say whose row it was: the batch then runs again with nothing set aside, so that the failing
// write is named as it would be alone (RecordService.batch).
import type { Resource } from '../resources/resource.ts';
import type { AccessGrant } from '../model/access-grant.ts';
import type { RecordEvent } from '../model/record-event.ts';
import type { RecordValues } from '../model/record-values.ts';
import type { BatchedInsertWriter } from '../store/batched-inserts.ts';
import type { Db, StoreDialect } from '../store/store-dialect.ts';
import type { TableRows } from '../store/write-statements.ts';
import { columnsOf } from '../query/record-columns.ts';
import { buildRecordEvent } from '../events/build-record-event.ts';
import { EVENTS_TABLE } from '../events/outbox.ts';
import { decodeRow, encodeValues } from './record-codec.ts';
import type { ChangeRunner } from './change-runner.ts';
import type { CheckRule } from './check-rule.ts';
import type { ReadResult, RequestMeta } from './record-results.ts';

type Row = Record<string, unknown>;

export class QueuedCreates {
  readonly #writer: BatchedInsertWriter;
  readonly #dialect: StoreDialect;
  readonly #runner: ChangeRunner;
  readonly #checks: CheckRule;
  /** The batch's events, which the committed-events listeners hear of in order. */
  readonly #events: RecordEvent[];
  /** Outbox rows waiting, in the order of their writes. */
  #eventRows: Row[] = [];
  /** Every other table's rows waiting (deliveries, records), by table in the order first seen. */
  #rows = new Map<string, Row[]>();
  #used = false;

  constructor(
    writer: BatchedInsertWriter,
    dialect: StoreDialect,
    runner: ChangeRunner,
    checks: CheckRule,
    events: RecordEvent[],
  ) {
    this.#writer = writer;
    this.#dialect = dialect;
    this.#runner = runner;
    this.#checks = checks;
    this.#events = events;
  }

  /** Whether any create was set aside: a failure of the batch may then be one of theirs. */
  get used(): boolean {
    return this.#used;
  }

  /**
   * Sets the create aside and answers it, or answers undefined when its record, as it would be stored,
   * fails the grant's check rule: the create is then made the usual way, which refuses it in SQL.
   * `values` include the system timestamps.
   */
  add(
    resource: Resource,
    meta: RequestMeta,
    grant: AccessGrant,
    id: string,
    values: RecordValues,
    readable: string[],
  ): ReadResult | undefined {
    const columns = columnsOf(resource);
    const encoded = { id, ...encodeValues(resource, this.#dialect, values) };
    const record = decodeRow(resource, this.#dialect, this.#writer.rowAsStored(resource, columns, encoded));
    if (!this.#checks.passes(resource, grant, record)) return undefined;
    const event = buildRecordEvent(resource.name, meta, 'created', id, null, record);
    const [eventRows, ...alongside] = this.#runner.eventParts(this.#events, event);
    this.#eventRows.push(...eventRows!.rows);
    for (const part of alongside) this.#rowsOf(part.table).push(...part.rows);
    this.#rowsOf(resource.table).push(encoded);
    this.#used = true;
    return { record, attributes: readable };
  }

  /** Writes everything set aside, in the transaction `trx`. */
  async flush(trx: Db): Promise<void> {
    if (this.#eventRows.length === 0) return;
    const signalled: TableRows = { table: EVENTS_TABLE, rows: this.#eventRows };
    const others: TableRows[] = [...this.#rows].map(([table, rows]) => ({ table, rows }));
    this.#eventRows = [];
    this.#rows = new Map();
    await this.#writer.insert(trx, signalled, others);
  }

  #rowsOf(table: string): Row[] {
    let rows = this.#rows.get(table);
    if (!rows) {
      rows = [];
      this.#rows.set(table, rows);
    }
    return rows;
  }
}

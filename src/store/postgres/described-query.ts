// A pg query on a named statement that asks PostgreSQL for the statement's row description once per
// connection, not at every execution. pg sends Describe with each Bind and rebuilds the column parsers
// from every RowDescription (~5% of a point lookup's CPU in svc, plus the server's reply and its
// parsing). The shape of a prepared statement's rows cannot change under it on its connection
// (PostgreSQL fails the execution with "cached plan must not change result type"), so the description
// seen first stays right for that connection. Relies on pg 8's Query internals (prepare, _result),
// whose shape pg-internals.ts checks before this class is built.

/** A statement's row description and what pg derives from it, shared by its later executions. */
export interface RowDescription {
  readonly fields: unknown[];
  readonly parsers: unknown[] | undefined;
  readonly emptyRow: object | null;
}

interface PgResult {
  fields: unknown[];
  _parsers: unknown[] | undefined;
  _prebuiltEmptyResultObject: object | null;
  addFields(fields: unknown[]): void;
}

interface PgConnection {
  bind(message: {
    portal: string;
    statement: string;
    values: unknown[];
    binary: boolean | undefined;
    valueMapper: undefined;
  }): void;
}

/** The parts of pg's Query (lib/query.js) this class builds on. */
interface PgQuery {
  name: string;
  portal: string;
  values: unknown[];
  binary: boolean | undefined;
  rows: number | undefined;
  callback: ((error: Error | null, result: unknown) => void) | undefined;
  _result: PgResult;
  _accumulateRows: boolean;
  submit(connection: PgConnection): Error | null;
  prepare(connection: PgConnection): void;
  handleRowDescription(message: { fields: unknown[] }): void;
  _getRows(connection: PgConnection, rows: number | undefined): void;
}

export type DescribedQuery = PgQuery;

export type DescribedQueryClass = new (
  name: string,
  text: string,
  values: unknown[],
  descriptions: Map<string, RowDescription>,
) => DescribedQuery;

/**
 * The class over pg's Query. `prepareValue` is the value mapper pg binds parameters with (Dates,
 * Buffers, arrays, JSON), so values are sent as before; its output (text, Buffer or null) maps to
 * itself, so pg mapping it again changes nothing.
 */
export function defineDescribedQuery(Query: unknown, prepareValue: (value: unknown) => unknown): DescribedQueryClass {
  const PgQueryClass = Query as new (text: string, values: unknown[]) => PgQuery;

  return class DescribedQueryImpl extends PgQueryClass {
    readonly #descriptions: Map<string, RowDescription>;

    /** `descriptions` belongs to one connection: what it holds was described on that connection. */
    constructor(name: string, text: string, values: unknown[], descriptions: Map<string, RowDescription>) {
      super(text, values);
      this.name = name;
      this.#descriptions = descriptions;
    }

    override submit(connection: PgConnection): Error | null {
      // Values are mapped to their wire text before anything is sent: one that cannot be (a failing
      // toPostgres) fails this query alone. pg would map it while binding and then close the statement,
      // which it still believes prepared, so every later execution on the connection would fail.
      try {
        this.values = this.values.map(prepareValue);
      } catch (error) {
        return error instanceof Error ? error : new Error(String(error));
      }
      return super.submit(connection);
    }

    override prepare(connection: PgConnection): void {
      const known = this.#descriptions.get(this.name);
      // Unknown: not yet described here (or it returns no rows); pg parses if needed, binds, describes.
      if (known === undefined) return super.prepare(connection);
      // Known means described, so parsed on this connection: bind (the values are mapped) and execute.
      connection.bind({
        portal: this.portal,
        statement: this.name,
        values: this.values,
        binary: this.binary,
        valueMapper: undefined,
      });
      const result = this._result;
      result.fields = known.fields;
      result._parsers = known.parsers;
      result._prebuiltEmptyResultObject = known.emptyRow;
      this._accumulateRows = true;
      this._getRows(connection, this.rows);
    }

    override handleRowDescription(message: { fields: unknown[] }): void {
      super.handleRowDescription(message);
      const result = this._result;
      this.#descriptions.set(this.name, {
        fields: result.fields,
        parsers: result._parsers,
        emptyRow: result._prebuiltEmptyResultObject,
      });
    }
  };
}

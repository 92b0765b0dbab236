// A query built and compiled by Kysely once, then run many times with one value swapped in, so a hot
// path (a record by id) neither builds nor compiles a query per request. The value's place is marked
// by a unique placeholder parameter; the SQL text stays the same, so SQLite's cached statement is reused.
import type { Compilable, CompiledQuery } from 'kysely';

/** Put this where the value goes when building the query. */
export const TEMPLATE_SLOT = '\u0000svc:template-slot\u0000';

export class QueryTemplate<R> {
  readonly #compiled: CompiledQuery<R>;
  readonly #slot: number;

  constructor(query: Compilable<R>) {
    this.#compiled = query.compile();
    this.#slot = this.#compiled.parameters.indexOf(TEMPLATE_SLOT);
    if (this.#slot < 0 || this.#compiled.parameters.lastIndexOf(TEMPLATE_SLOT) !== this.#slot) {
      throw new Error('a query template needs exactly one TEMPLATE_SLOT parameter');
    }
  }

  /** The compiled query with `value` in the slot: run it with `db.executeQuery()`. */
  bind(value: unknown): CompiledQuery<R> {
    const parameters = [...this.#compiled.parameters];
    parameters[this.#slot] = value;
    return { ...this.#compiled, parameters };
  }
}

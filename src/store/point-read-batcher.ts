// Reads of one row by id that arrive in the same event-loop pass and share a query (one resource, one
// row filter) go to the database together, as one `id = any($ids)` query, once the pass is over.
// Why: on PostgreSQL every query is a round trip through the pool, and its client side alone (pool
// hand-off, protocol encoding and parsing, a socket write that wakes a server process) cost more of
// this process's CPU than the rest of a get-by-id. A lone read still runs by itself, one pass later.
type Row = Record<string, unknown>;

interface Waiter {
  resolve(row: Row | undefined): void;
  reject(error: unknown): void;
}

/** Runs the read for a group's ids; `ids` has one entry per distinct id asked for. */
export type ReadRows<G> = (group: G, ids: string[]) => Promise<Row[]>;

export class PointReadBatcher<G extends object> {
  readonly #run: ReadRows<G>;
  #pending = new Map<G, Map<string, Waiter[]>>();

  constructor(run: ReadRows<G>) {
    this.#run = run;
  }

  /** The row with this id (its `id` column) among what `group`'s query returns, or undefined. */
  read(group: G, id: string): Promise<Row | undefined> {
    return new Promise((resolve, reject) => {
      if (this.#pending.size === 0) setImmediate(() => this.#flush());
      let batch = this.#pending.get(group);
      if (!batch) {
        batch = new Map();
        this.#pending.set(group, batch);
      }
      const waiters = batch.get(id);
      if (waiters) waiters.push({ resolve, reject });
      else batch.set(id, [{ resolve, reject }]);
    });
  }

  #flush(): void {
    const due = this.#pending;
    this.#pending = new Map();
    for (const [group, batch] of due) void this.#answer(group, batch);
  }

  async #answer(group: G, batch: Map<string, Waiter[]>): Promise<void> {
    let rows: Row[];
    try {
      rows = await this.#run(group, [...batch.keys()]);
    } catch (error) {
      for (const waiters of batch.values()) for (const waiter of waiters) waiter.reject(error);
      return;
    }
    const byId = new Map(rows.map((row) => [row.id as string, row]));
    for (const [id, waiters] of batch) {
      const row = byId.get(id);
      for (const waiter of waiters) waiter.resolve(row);
    }
  }
}

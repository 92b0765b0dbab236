// The reads of one event-loop pass share one SQLite read transaction. Outside a transaction every
// statement opens and closes its own: in WAL mode that is a read mark taken and given back in the
// shared-memory index, with file-lock system calls each way, about half the cost of a point read by
// id (4.0 against 2.0 µs per read measured alone, 10,000 rows). Held to the end of the pass (the
// check phase, after the pass's I/O callbacks), the lock is taken once for all the requests read
// together. Nothing but reads may run in it: a write or a transaction's BEGIN ends it first (see
// statement-cache.ts), so a write is never held back, nor reported done before its own commit.
import type Database from 'better-sqlite3';

export class PassReadTransaction {
  readonly #raw: Database.Database;
  readonly #begin: Database.Statement;
  readonly #commit: Database.Statement;
  #open = false;
  #endScheduled = false;
  readonly #endOfPass = () => {
    this.#endScheduled = false;
    this.end();
  };

  constructor(raw: Database.Database) {
    this.#raw = raw;
    this.#begin = raw.prepare('begin');
    this.#commit = raw.prepare('commit');
  }

  /**
   * Opens the pass's read transaction unless one is open; false when the connection is inside another
   * transaction (a write's), whose uncommitted rows a read here would see.
   */
  enter(): boolean {
    if (this.#open) return true;
    if (this.#raw.inTransaction) return false;
    this.#begin.run();
    this.#open = true;
    if (!this.#endScheduled) {
      this.#endScheduled = true;
      setImmediate(this.#endOfPass);
    }
    return true;
  }

  /** Ends the read transaction if one is open: before a write, a BEGIN, a schema change, or at the end of the pass. */
  end(): void {
    if (!this.#open) return;
    this.#open = false;
    // A read-only transaction's COMMIT only gives its read mark back. Should SQLite have ended it
    // already (it does so on some errors), there is nothing left to end.
    if (this.#raw.open && this.#raw.inTransaction) this.#commit.run();
  }
}

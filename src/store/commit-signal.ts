// Wake-on-commit. A database that can tell other connections the moment a transaction commits
// (PostgreSQL: NOTIFY, heard on a LISTEN connection) wakes every process's outbox reader at once; one
// that cannot (SQLite) leaves them to their poll. The store owns it, so the writers of the outbox
// (records/, events/outbox.ts) and its reader (events/create-event-hub.ts) each depend on the store
// alone and not on each other.

/** Called on every signal and after a reconnection; `hint`, when the signal has one, names the row. */
export type CommitWake = (hint?: string) => void;

/** The connection that hears the signals of every process's commits. */
export interface CommitListener {
  /** Starts listening; `wake` is called on every signal and after a reconnection. */
  start(wake: CommitWake): Promise<void>;
  close(): Promise<void>;
}

/** Where a listener reports a lost or refused connection (the service goes on, polling). */
export interface CommitLog {
  warn(details: object, message: string): void;
}

/** What a database that can signal at commit provides. */
export interface CommitSignalling {
  /**
   * The RETURNING expression of an outbox insert that signals when its transaction commits, with the
   * row's seq and the event's id as its hint (`<seq> <id>`, read by parseNotifyPayload).
   */
  readonly returning: { sql: string };
  listener(log: CommitLog): CommitListener;
}

export class CommitSignal {
  readonly #signalling: CommitSignalling | undefined;
  #sending = false;

  /** Without `signalling` the database cannot signal: listen() answers undefined and nothing is sent. */
  constructor(signalling?: CommitSignalling) {
    this.#signalling = signalling;
  }

  /**
   * From now on every outbox insert through this store signals at its commit; returns the listener
   * for the signals of every process's commits, or undefined where the database has none (the outbox
   * readers then poll).
   */
  listen(log: CommitLog): CommitListener | undefined {
    if (!this.#signalling) return undefined;
    this.#sending = true;
    return this.#signalling.listener(log);
  }

  /** The RETURNING expression each outbox insert carries, read when its statement is built; undefined while not sending. */
  returning(): { sql: string } | undefined {
    return this.#sending ? this.#signalling?.returning : undefined;
  }
}

/** The seq and event id a commit signal's hint names, or null for another payload. */
export function parseNotifyPayload(payload: string): { seq: number; id: string } | null {
  const space = payload.indexOf(' ');
  if (space <= 0) return null;
  const seq = Number(payload.slice(0, space));
  const id = payload.slice(space + 1);
  return Number.isSafeInteger(seq) && seq > 0 && id.length > 0 ? { seq, id } : null;
}

// A small broadcast channel between the processes of one deployment, through the database they share:
// "key K changed", "the resource definitions changed". A signal is a row; every process reads the rows
// after the last one it saw, on a short interval. It needs no Redis and no LISTEN connection, works the
// same on SQLite and PostgreSQL, and a process that was away misses nothing it still needs: it loaded
// fresh state when it started, and signals only ever say "drop what you cached".
import { sql } from 'kysely';
import type { FastifyBaseLogger } from 'fastify';
import type { Db, StoreDialect } from '../store/store-dialect.ts';
import { sequenceColumn } from '../store/sequence-column.ts';

export const SIGNALS_TABLE = 'svc_signals';

export type SignalPayload = Record<string, unknown>;
export type SignalHandler = (payload: SignalPayload) => void | Promise<void>;

export interface ClusterSignalsOptions {
  db: Db;
  dialect: StoreDialect;
  log: FastifyBaseLogger;
  pollIntervalMs: number;
  /** Signals older than this are deleted (every process was long since told). */
  retentionMs: number;
}

interface SignalRow {
  seq: number | string;
  topic: string;
  origin: string;
  payload: string;
}

const BATCH = 200;

export class ClusterSignals {
  /** Tells this process's own signals apart: their effect was applied locally when they were sent. */
  readonly nodeId = crypto.randomUUID();
  readonly #options: ClusterSignalsOptions;
  readonly #handlers = new Map<string, SignalHandler[]>();
  #position = 0;
  #timer: NodeJS.Timeout | null = null;
  #polling: Promise<void> | null = null;
  /** Polls asked for, and the newest one a finished read covers. */
  #requested = 0;
  #covered = 0;
  #lastPrune = 0;
  #closed = false;

  constructor(options: ClusterSignalsOptions) {
    this.#options = options;
  }

  async migrate(): Promise<void> {
    const { db, dialect } = this.#options;
    await db.schema
      .createTable(SIGNALS_TABLE)
      .ifNotExists()
      .addColumn('seq', sequenceColumn(dialect))
      .addColumn('topic', 'text', (c) => c.notNull())
      .addColumn('origin', 'text', (c) => c.notNull())
      .addColumn('payload', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .execute();
  }

  on(topic: string, handler: SignalHandler): void {
    const list = this.#handlers.get(topic) ?? [];
    list.push(handler);
    this.#handlers.set(topic, list);
  }

  /**
   * Tells every other process. Never throws: a signal that cannot be written is logged, and the other
   * processes' caches still expire on their own (keys within their TTL).
   */
  async publish(topic: string, payload: SignalPayload): Promise<void> {
    try {
      await this.#options.db
        .insertInto(SIGNALS_TABLE)
        .values({ topic, origin: this.nodeId, payload: JSON.stringify(payload), created_at: new Date().toISOString() })
        .execute();
    } catch (error) {
      this.#options.log.warn({ err: error, topic }, 'could not broadcast a change to the other processes');
    }
  }

  /** Starts after the newest signal: what came before is already reflected in what this process loads. */
  async start(): Promise<void> {
    if (this.#timer || this.#closed) return;
    const row = await this.#options.db
      .selectFrom(SIGNALS_TABLE)
      .select(sql<number | string | null>`max(seq)`.as('seq'))
      .executeTakeFirst();
    this.#position = Number(row?.seq ?? 0);
    this.#timer = setInterval(() => void this.poll(), this.#options.pollIntervalMs);
    this.#timer.unref();
  }

  /**
   * Reads and handles every signal written before the call (the timer calls it too). A read already
   * under way may have started before the caller's signal was written; it does not count for this call.
   */
  async poll(): Promise<void> {
    const wanted = ++this.#requested;
    while (this.#covered < wanted) {
      this.#polling ??= this.#readCovering(this.#requested).finally(() => {
        this.#polling = null;
      });
      await this.#polling;
    }
  }

  async #readCovering(requested: number): Promise<void> {
    await this.#read();
    this.#covered = Math.max(this.#covered, requested);
  }

  async close(): Promise<void> {
    this.#closed = true;
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
    await this.#polling;
  }

  async #read(): Promise<void> {
    if (this.#closed) return;
    try {
      for (;;) {
        const rows = (await this.#options.db
          .selectFrom(SIGNALS_TABLE)
          .select(['seq', 'topic', 'origin', 'payload'])
          .where('seq', '>', this.#position)
          .orderBy('seq')
          .limit(BATCH)
          .execute()) as unknown as SignalRow[];
        for (const row of rows) {
          this.#position = Number(row.seq);
          if (row.origin !== this.nodeId) await this.#dispatch(row);
        }
        if (rows.length < BATCH) break;
      }
      await this.#pruneNow();
    } catch (error) {
      // The database may be away; the next tick tries again from the same position.
      this.#options.log.warn({ err: error }, 'reading cluster signals failed');
    }
  }

  async #dispatch(row: SignalRow): Promise<void> {
    let payload: SignalPayload;
    try {
      payload = JSON.parse(row.payload) as SignalPayload;
    } catch {
      return;
    }
    for (const handler of this.#handlers.get(row.topic) ?? []) {
      try {
        await handler(payload);
      } catch (error) {
        this.#options.log.error({ err: error, topic: row.topic }, 'handling a cluster signal failed');
      }
    }
  }

  async #pruneNow(): Promise<void> {
    const now = Date.now();
    if (now - this.#lastPrune < this.#options.retentionMs / 4) return;
    this.#lastPrune = now;
    const cutoff = new Date(now - this.#options.retentionMs).toISOString();
    await this.#options.db.deleteFrom(SIGNALS_TABLE).where('created_at', '<', cutoff).execute();
  }
}

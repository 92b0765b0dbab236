// Follows the outbox table by `seq` and hands every newly committed event to `deliver`, including the
// events other processes commit. On PostgreSQL a lower `seq` can commit after a higher one (sequence
// values are taken at insert, rows become visible at commit), so a missing `seq` below the highest one
// read is remembered as a gap and looked for again until it appears or its grace period ends (a rolled
// back transaction leaves a gap that never fills).
import type { Db } from '../store/store-dialect.ts';
import { EVENTS_TABLE } from './outbox.ts';
import type { RecordEvent } from '../model/record-event.ts';

export interface OutboxTailerOptions {
  /** Rows read per query; a full batch triggers another read at once. */
  batchSize: number;
  /** How long a missing `seq` is waited for. Longer than any transaction that writes an event. */
  gapGraceMs: number;
  /** At most this many gaps are remembered (the oldest are given up first). */
  maxGaps: number;
  /** On start, this many latest rows are taken as already seen and their gaps as open. */
  startWindow: number;
  /** Whether the event with this id and resource is still wanted; its payload is parsed only then. */
  wants?: (id: string, resource: string) => boolean;
}

interface OutboxRow {
  seq: number | string | bigint;
  id: string;
  resource: string;
  payload: string;
}

const TAIL_COLUMNS = ['seq', 'id', 'resource', 'payload'] as const;

export class OutboxTailer {
  readonly #db: Db;
  readonly #deliver: (event: RecordEvent) => void;
  readonly #options: OutboxTailerOptions;
  /** Highest `seq` read so far; every `seq` at or below it was read, is a gap, or was given up. */
  #high = 0;
  /** Missing `seq` → when it was first found missing. */
  readonly #gaps = new Map<number, number>();
  #reading: Promise<void> | null = null;
  #again = false;
  #stopped = false;

  constructor(db: Db, deliver: (event: RecordEvent) => void, options: OutboxTailerOptions) {
    this.#db = db;
    this.#deliver = deliver;
    this.#options = options;
  }

  /** Starts from the current end of the outbox: history is not delivered, recent gaps are watched. */
  async start(): Promise<void> {
    const rows = await this.#db
      .selectFrom(EVENTS_TABLE)
      .select('seq')
      .orderBy('seq', 'desc')
      .limit(this.#options.startWindow)
      .execute();
    const seqs = rows.map((row) => Number(row.seq));
    if (seqs.length === 0) return;
    this.#high = seqs[0]!;
    const seen = new Set(seqs);
    const now = Date.now();
    for (let seq = seqs[seqs.length - 1]!; seq < this.#high; seq++) if (!seen.has(seq)) this.#addGap(seq, now);
  }

  /** Reads whatever is new; concurrent calls coalesce into one more read after the current one. */
  poll(): Promise<void> {
    if (this.#stopped) return Promise.resolve();
    if (this.#reading) {
      this.#again = true;
      return this.#reading;
    }
    this.#reading = this.#readUntilIdle().finally(() => {
      this.#reading = null;
    });
    return this.#reading;
  }

  /**
   * Takes `seq` as read without reading it, when a read could bring nothing new for it: it was read
   * already, or it is next in line (or an open gap) and `publishedHere()` confirms this process has
   * published its event itself (and forgets it, as a read would). False when it must be read. Never
   * while a read is in flight: that read may return the row, which would then be published twice.
   */
  pass(seq: number, publishedHere: () => boolean): boolean {
    if (this.#stopped) return true;
    if (seq <= this.#high && !this.#gaps.has(seq)) return true;
    if (this.#reading) return false;
    const nextInLine = seq === this.#high + 1;
    if (!nextInLine && !this.#gaps.has(seq)) return false;
    if (!publishedHere()) return false;
    if (nextInLine) this.#high = seq;
    else this.#gaps.delete(seq);
    return true;
  }

  /** Stops reading; resolves when a read in progress has finished. */
  async stop(): Promise<void> {
    this.#stopped = true;
    await this.#reading?.catch(() => {});
  }

  /** Highest `seq` read so far (0 before the first): what the outbox lag is measured from. */
  get position(): number {
    return this.#high;
  }

  /** Whether the tail has read `seq` (or given up waiting for it): it will not bring that event again. */
  hasRead(seq: number): boolean {
    return seq <= this.#high && !this.#gaps.has(seq);
  }

  get gapCount(): number {
    return this.#gaps.size;
  }

  async #readUntilIdle(): Promise<void> {
    // Bounded: each round either drains a full batch or ends; a burst larger than this waits for the next poll.
    for (let round = 0; round < 100 && !this.#stopped; round++) {
      this.#again = false;
      const full = await this.#readOnce();
      if (!full && !this.#again) return;
    }
  }

  /** One round: the open gaps, then the rows above the highest `seq`. True when the batch was full. */
  async #readOnce(): Promise<boolean> {
    const now = Date.now();
    for (const [seq, since] of this.#gaps) if (now - since > this.#options.gapGraceMs) this.#gaps.delete(seq);
    if (this.#gaps.size > 0) {
      const found = await this.#db
        .selectFrom(EVENTS_TABLE)
        .select(TAIL_COLUMNS)
        .where('seq', 'in', [...this.#gaps.keys()])
        .orderBy('seq')
        .execute();
      for (const row of found as OutboxRow[]) {
        this.#gaps.delete(Number(row.seq));
        this.#emit(row);
      }
    }
    const rows = (await this.#db
      .selectFrom(EVENTS_TABLE)
      .select(TAIL_COLUMNS)
      .where('seq', '>', this.#high)
      .orderBy('seq')
      .limit(this.#options.batchSize)
      .execute()) as OutboxRow[];
    for (const row of rows) {
      const seq = Number(row.seq);
      // Rows of a pruned or reset outbox can be far below; only the span since `#high` is a gap.
      const from = Math.max(this.#high + 1, seq - this.#options.maxGaps);
      for (let missing = from; missing < seq; missing++) this.#addGap(missing, now);
      this.#high = Math.max(this.#high, seq);
      this.#emit(row);
    }
    return rows.length === this.#options.batchSize;
  }

  #addGap(seq: number, now: number): void {
    this.#gaps.set(seq, now);
    if (this.#gaps.size > this.#options.maxGaps) {
      const oldest = this.#gaps.keys().next();
      if (!oldest.done) this.#gaps.delete(oldest.value);
    }
  }

  #emit(row: OutboxRow): void {
    if (this.#stopped) return;
    // Most rows a process reads back are its own commits, already published: parsing them is wasted.
    if (this.#options.wants && !this.#options.wants(row.id, row.resource)) return;
    this.#deliver(JSON.parse(row.payload) as RecordEvent);
  }
}

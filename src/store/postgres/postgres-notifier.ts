// PostgreSQL LISTEN/NOTIFY as the wake-up signal: one dedicated connection listens on `svc_events`;
// writers NOTIFY inside the transaction that writes the event, so the signal goes out exactly at commit.
import type pg from 'pg';
import { loadPg } from '../../tools/optional-packages.ts';
import type { CommitListener, CommitLog, CommitSignalling, CommitWake } from '../commit-signal.ts';

export const NOTIFY_CHANNEL = 'svc_events';

/** LISTEN/NOTIFY on NOTIFY_CHANNEL, through a dedicated connection to `url`. */
export function postgresCommitSignalling(url: string): CommitSignalling {
  return { returning: notifyReturning(NOTIFY_CHANNEL)!, listener: (log) => new PostgresNotifier(url, log) };
}

/**
 * The RETURNING expression of an event's insert that sends NOTIFY at commit, with the row's seq and
 * the event's id (`<seq> <id>`): the writing process knows the id as its own, and need not read the
 * row back (OutboxEventHub).
 */
export function notifyReturning(notifyChannel: string | undefined): { sql: string } | undefined {
  return notifyChannel === undefined
    ? undefined
    : { sql: `pg_notify(${quoteLiteral(notifyChannel)}, seq::text || ' ' || id)` };
}

function quoteLiteral(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}

const RECONNECT_MIN_MS = 500;
const RECONNECT_MAX_MS = 30_000;

export class PostgresNotifier implements CommitListener {
  readonly #url: string;
  readonly #log: CommitLog;
  #client: pg.Client | null = null;
  #wake: CommitWake = () => {};
  #retryTimer: NodeJS.Timeout | null = null;
  #retryDelay = RECONNECT_MIN_MS;
  #closed = false;

  constructor(url: string, log: CommitLog) {
    this.#url = url;
    this.#log = log;
  }

  async start(wake: CommitWake): Promise<void> {
    this.#wake = wake;
    try {
      await this.#connect();
    } catch (error) {
      // The service still runs: the fallback poll delivers, and we keep trying to listen.
      this.#log.warn({ err: error }, 'event listener could not connect; retrying');
      this.#scheduleReconnect();
    }
  }

  async close(): Promise<void> {
    this.#closed = true;
    if (this.#retryTimer) clearTimeout(this.#retryTimer);
    this.#retryTimer = null;
    const client = this.#client;
    this.#client = null;
    await client?.end().catch(() => {});
  }

  async #connect(): Promise<void> {
    const client = new (loadPg().Client)({ connectionString: this.#url });
    // Without an error listener a dropped connection would crash the process.
    client.on('error', (error) => this.#lost(client, error));
    client.on('end', () => this.#lost(client));
    client.on('notification', (message) => {
      if (message.channel === NOTIFY_CHANNEL) this.#wake(message.payload);
    });
    await client.connect();
    await client.query(`LISTEN ${NOTIFY_CHANNEL}`);
    if (this.#closed) {
      await client.end().catch(() => {});
      return;
    }
    this.#client = client;
    this.#retryDelay = RECONNECT_MIN_MS;
  }

  #lost(client: pg.Client, error?: Error): void {
    if (this.#closed || this.#client !== client) return;
    this.#client = null;
    this.#log.warn({ err: error }, 'event listener connection lost; reconnecting');
    client.end().catch(() => {});
    this.#scheduleReconnect();
  }

  #scheduleReconnect(): void {
    if (this.#closed || this.#retryTimer) return;
    const delay = this.#retryDelay;
    this.#retryDelay = Math.min(this.#retryDelay * 2, RECONNECT_MAX_MS);
    this.#retryTimer = setTimeout(() => {
      this.#retryTimer = null;
      this.#connect().then(
        // Whatever was committed while we were away is in the outbox: read it now.
        () => this.#wake(),
        (error: unknown) => {
          this.#log.warn({ err: error }, 'event listener could not reconnect');
          this.#scheduleReconnect();
        },
      );
    }, delay);
    this.#retryTimer.unref();
  }
}

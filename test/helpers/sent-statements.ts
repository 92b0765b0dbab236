// The statements svc's PostgreSQL clients send while some work runs, each with the client
// (connection) that sent it: to check how many round trips a write takes and whether a transaction
// surrounds them.
import { poolClient } from '../../src/store/postgres/naming-client.ts';

export interface SentStatement {
  client: unknown;
  text: string;
}

/**
 * Records the statements sent while `work` runs, but for the API keys' usage flush (a transaction of
 * its own on its own timer, auth/keys/usage-recorder.ts, that may land in any window). `beforeSend`
 * runs (and is awaited) before the first statement matching `at` is sent: a change made meanwhile
 * elsewhere.
 */
export async function statementsDuring(
  work: () => Promise<unknown>,
  at?: RegExp,
  beforeSend?: () => Promise<unknown>,
): Promise<SentStatement[]> {
  const prototype = poolClient().Client.prototype as unknown as { query: (...args: unknown[]) => unknown };
  const query = prototype.query;
  const sent: SentStatement[] = [];
  let pending = beforeSend;
  prototype.query = function (this: unknown, ...args: unknown[]) {
    const text = typeof args[0] === 'string' ? args[0] : (args[0] as { text?: string })?.text;
    if (!text) return query.apply(this, args);
    if (pending && at?.test(text)) {
      const run = pending;
      pending = undefined;
      return run().then(() => {
        sent.push({ client: this, text });
        return query.apply(this, args);
      });
    }
    sent.push({ client: this, text });
    return query.apply(this, args);
  };
  try {
    await work();
  } finally {
    prototype.query = query;
  }
  return withoutUsageFlushes(sent);
}

const firstWord = (text: string) => text.trim().split(/\s/)[0]!.toLowerCase();

function withoutUsageFlushes(sent: readonly SentStatement[]): SentStatement[] {
  const others = sent.filter(({ text }) => !/^\s*update "svc_api_keys"/i.test(text));
  const flushEnds = new Set<SentStatement>();
  /** Per client, the statement it sent last (after the flush's own updates are left out). */
  const last = new Map<unknown, SentStatement>();
  for (const statement of others) {
    const word = firstWord(statement.text);
    const before = last.get(statement.client);
    // A transaction with nothing left in it, or the end of one begun before the window: the flush's.
    if ((word === 'commit' || word === 'rollback') && (before === undefined || firstWord(before.text) === 'begin')) {
      flushEnds.add(statement);
      if (before) flushEnds.add(before);
    }
    last.set(statement.client, statement);
  }
  return others.filter((statement) => !flushEnds.has(statement));
}

/** The first word of each statement one connection sent (the pool reuses it for other work meanwhile). */
export function firstWordsOn(sent: readonly SentStatement[], client: unknown): string[] {
  return sent.filter((statement) => statement.client === client).map(({ text }) => firstWord(text));
}

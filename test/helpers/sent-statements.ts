// The statements svc's PostgreSQL clients send while some work runs, each with the client
// (connection) that sent it: to check how many round trips a write takes and whether a transaction
// surrounds them.
import { namingClient } from '../../src/store/postgres/naming-client.ts';

export interface SentStatement {
  client: unknown;
  text: string;
}

/**
 * Records the statements sent while `work` runs. `beforeSend` runs (and is awaited) before the first
 * statement matching `at` is sent: a change made meanwhile elsewhere.
 */
export async function statementsDuring(work: () => Promise<unknown>, at?: RegExp, beforeSend?: () => Promise<unknown>): Promise<SentStatement[]> {
  const prototype = namingClient().prototype as unknown as { query: (...args: unknown[]) => unknown };
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
  return sent;
}

/** The first word of each statement one connection sent (the pool reuses it for other work meanwhile). */
export function firstWordsOn(sent: readonly SentStatement[], client: unknown): string[] {
  return sent.filter((statement) => statement.client === client).map(({ text }) => text.trim().split(/\s/)[0]!.toLowerCase());
}

// A local webhook receiver: counts deliveries and answers 204, optionally after a delay (a slow receiver).
// With `timeLag` it also keeps, per delivery, how long after the event was written it arrived.
import { createServer, type Server } from 'node:http';

export interface WebhookReceiver {
  url: string;
  /** Deliveries received so far. */
  count(): number;
  /** Arrival times (Date.now()) of every delivery, when `timeLag` was set. */
  arrivals(): number[];
  /** Milliseconds from each event's createdAt to its arrival here, when `timeLag` was set. */
  lags(): number[];
  /** Hold every delivery unanswered (it counts on arrival) until `release()`: builds a backlog. */
  hold(): void;
  release(): void;
  close(): Promise<void>;
}

export function startWebhookReceiver(options: { delayMs?: number; timeLag?: boolean } = {}): Promise<WebhookReceiver> {
  let received = 0;
  let held: (() => void)[] | null = null;
  const arrivals: number[] = [];
  const lags: number[] = [];
  const server: Server = createServer((request, response) => {
    let body = '';
    if (options.timeLag) request.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
    else request.resume();
    request.on('end', () => {
      received++;
      if (options.timeLag) {
        const now = Date.now();
        arrivals.push(now);
        const createdAt = /"createdAt":"([^"]+)"/.exec(body)?.[1];
        if (createdAt) lags.push(now - Date.parse(createdAt));
      }
      const answer = () => response.writeHead(204).end();
      if (held) held.push(answer);
      else if (options.delayMs) setTimeout(answer, options.delayMs);
      else answer();
    });
  });
  server.keepAliveTimeout = 60_000;
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      resolve({
        url: `http://127.0.0.1:${port}/hook`,
        count: () => received,
        arrivals: () => arrivals,
        lags: () => lags,
        hold: () => {
          held ??= [];
        },
        release: () => {
          const answers = held ?? [];
          held = null;
          for (const answer of answers) answer();
        },
        close: () =>
          new Promise<void>((done) => {
            server.closeAllConnections();
            server.close(() => done());
          }),
      });
    });
  });
}

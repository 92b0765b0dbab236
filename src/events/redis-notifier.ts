// Redis pub/sub as the wake-up signal, for deployments that set `redis.url`: every process publishes
// after its commits and subscribes to the others'.
import type { Redis } from 'ioredis';
import { loadIoredis } from '../tools/optional-packages.ts';
import type { FastifyBaseLogger } from 'fastify';
import type { ChangeNotifier } from './change-notifier.ts';

export const REDIS_CHANNEL = 'svc:events';

/** How long start() waits for the subscription before going on without it. */
const START_WAIT_MS = 2000;

export class RedisNotifier implements ChangeNotifier {
  readonly #subscriber: Redis;
  readonly #publisher: Redis;
  readonly #log: FastifyBaseLogger;
  #started = false;
  #closed = false;

  constructor(url: string, log: FastifyBaseLogger) {
    // The subscription waits for a connection however long it takes; a publish is best effort and
    // fails at once while Redis is away (the other processes' fallback poll finds the rows).
    const { Redis: RedisClient } = loadIoredis();
    // autoResubscribe off: ioredis' own resubscription after a reconnection leaves its promise unhandled,
    // and a close while it was in flight (shutdown right after an outage) was an unhandled rejection.
    // start() renews the subscription itself, handled.
    this.#subscriber = new RedisClient(url, { lazyConnect: true, maxRetriesPerRequest: null, autoResubscribe: false });
    this.#publisher = new RedisClient(url, { lazyConnect: true, enableOfflineQueue: false, maxRetriesPerRequest: 1 });
    this.#log = log;
    // ioredis reconnects by itself; without listeners its errors would be unhandled.
    for (const connection of [this.#subscriber, this.#publisher]) {
      connection.on('error', (error: Error) => {
        if (!this.#closed) this.#log.warn({ err: error }, 'redis connection error');
      });
    }
  }

  async start(wake: () => void): Promise<void> {
    this.#subscriber.on('message', (channel: string) => {
      if (channel === REDIS_CHANNEL) wake();
    });
    let connectedBefore = false;
    this.#subscriber.on('ready', () => {
      // After a reconnection: subscribe again; events committed meanwhile are in the outbox.
      if (connectedBefore) void this.#subscribe();
      connectedBefore = true;
      wake();
    });
    this.#started = true;
    this.#publisher
      .connect()
      .catch((error: unknown) => this.#log.warn({ err: error }, 'redis publisher could not connect; retrying'));
    // Redis being away does not stop the service from starting: wait a little, then go on without it.
    const subscribed = this.#subscribe();
    let timer: NodeJS.Timeout | undefined;
    const waited = new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), START_WAIT_MS);
    });
    const ok = await Promise.race([subscribed, waited]);
    clearTimeout(timer);
    if (!ok) this.#log.warn('redis is not reachable yet; events from other processes arrive by polling until it is');
  }

  /** Subscribes to the channel; false when that failed (logged unless closing). */
  #subscribe(): Promise<boolean> {
    return this.#subscriber.subscribe(REDIS_CHANNEL).then(
      () => true,
      (error: unknown) => {
        if (!this.#closed) this.#log.warn({ err: error }, 'redis subscription failed');
        return false;
      },
    );
  }

  /** Tells every process (this one included) that the outbox has new rows. */
  announce(): void {
    // Before start() there is no connection to publish on; the others' fallback poll finds the rows.
    if (!this.#started || this.#closed) return;
    this.#publisher.publish(REDIS_CHANNEL, '1').catch((error: unknown) => {
      // The others still find the rows on their next poll.
      this.#log.warn({ err: error }, 'could not publish an event notification');
    });
  }

  async close(): Promise<void> {
    this.#closed = true;
    // disconnect(), not quit(): quit() on a connection that never came up would first try to connect.
    this.#subscriber.disconnect();
    this.#publisher.disconnect();
  }
}

// The Redis wake-up signal across a reconnection: after Redis comes back the subscription is renewed
// (by RedisNotifier itself, not ioredis), and closing while that renewal is still in flight (a shutdown
// right after an outage) raises nothing. ioredis' own resubscription left its promise unhandled, so
// such a close ended the process's test run with an unhandled "Connection is closed." rejection.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { pino } from 'pino';
import { RedisNotifier } from '../../src/events/redis-notifier.ts';
import { TcpProxy } from '../helpers/tcp-proxy.ts';

const REDIS = process.env.TEST_REDIS_URL;
const SKIP = REDIS ? false : 'TEST_REDIS_URL is not set';
if (SKIP) process.stdout.write(`# SKIP Redis notifier: ${SKIP}\n`);

/** Resolves when `condition` holds, checking every 10 ms; rejects after `timeoutMs`. */
async function until(condition: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('RedisNotifier across a reconnection', { skip: SKIP, timeout: 60_000 }, () => {
  it("hears other processes' announcements again once Redis is back", async () => {
    const proxy = await TcpProxy.start(Number(new URL(REDIS!).port || 6379));
    const log = pino({ level: 'silent' });
    const listener = new RedisNotifier(proxy.through(REDIS!), log);
    const announcer = new RedisNotifier(REDIS!, log);
    try {
      let wakes = 0;
      await listener.start(() => wakes++);
      await announcer.start(() => {});
      await proxy.cut();
      const beforeRestore = wakes;
      await proxy.restore();
      // The reconnection's 'ready' wakes it once; any wake after that is an announcement it heard.
      await until(() => wakes > beforeRestore, 'the listener reconnected');
      const reconnected = wakes;
      const announcing = setInterval(() => announcer.announce(), 20);
      try {
        await until(() => wakes > reconnected, 'an announcement arrived after the reconnection');
      } finally {
        clearInterval(announcing);
      }
    } finally {
      await listener.close();
      await announcer.close();
      await proxy.close();
    }
  });

  it('closes cleanly while the renewed subscription is in flight', async () => {
    const proxy = await TcpProxy.start(Number(new URL(REDIS!).port || 6379));
    const notifier = new RedisNotifier(proxy.through(REDIS!), pino({ level: 'silent' }));
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      let reconnecting = false;
      let closedOnReady = false;
      await notifier.start(() => {
        // The first wake after the outage is the reconnection's 'ready': the renewed SUBSCRIBE is in flight.
        if (!reconnecting) return;
        reconnecting = false;
        closedOnReady = true;
        void notifier.close();
      });
      await proxy.cut();
      reconnecting = true;
      await proxy.restore();
      await until(() => closedOnReady, 'the notifier reconnected');
      // Let the in-flight command's rejection surface, if anything leaves it unhandled.
      await new Promise((resolve) => setTimeout(resolve, 200));
      assert.deepEqual(unhandled.map(String), []);
    } finally {
      process.off('unhandledRejection', onUnhandled);
      await notifier.close();
      await proxy.close();
    }
  });
});

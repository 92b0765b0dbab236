// When stream frames are written: at once after a quiet spell, and under load no sooner than a few
// times the last flush's cost, so that writes to many clients cannot take all of the process's time.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { setImmediate as nextTurn, setTimeout as sleep } from 'node:timers/promises';
import { FLUSH_COST_MULTIPLE, FlushScheduler, MIN_FLUSH_INTERVAL_MS } from '../../src/stream/flush-scheduler.ts';

/** A flushable that records when it flushed and takes `costMs` of CPU doing it. */
function target(costMs: number) {
  const flushes: number[] = [];
  return {
    flushes,
    flush() {
      flushes.push(performance.now());
      const until = performance.now() + costMs;
      while (performance.now() < until) {
        // Busy: stands for writing to many sockets.
      }
    },
  };
}

async function until(condition: () => boolean, timeoutMs = 2000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await sleep(2);
  }
}

describe('FlushScheduler', () => {
  it('flushes after the current I/O callbacks when nothing was flushed lately, once for many schedules', async () => {
    const scheduler = new FlushScheduler();
    const a = target(0);
    for (let i = 0; i < 10; i++) scheduler.schedule(a);
    assert.equal(a.flushes.length, 0);
    await nextTurn();
    assert.equal(a.flushes.length, 1);
  });

  it('spaces flushes by a multiple of the last flush cost, and never less than the minimum', async () => {
    const scheduler = new FlushScheduler();
    const cheap = target(0);
    scheduler.schedule(cheap);
    await until(() => cheap.flushes.length === 1);
    scheduler.schedule(cheap);
    await until(() => cheap.flushes.length === 2);
    assert.ok(cheap.flushes[1]! - cheap.flushes[0]! >= MIN_FLUSH_INTERVAL_MS - 1, 'at least the minimum interval apart');

    const costMs = 20;
    const costly = target(costMs);
    scheduler.schedule(costly);
    await until(() => costly.flushes.length === 1);
    scheduler.schedule(costly);
    await until(() => costly.flushes.length === 2);
    const gap = costly.flushes[1]! - costly.flushes[0]!;
    assert.ok(gap >= costMs * FLUSH_COST_MULTIPLE - 1, `a ${costMs} ms flush is followed ${gap} ms later`);
  });

  it('drops a target that flushed on its own', async () => {
    const scheduler = new FlushScheduler();
    const a = target(0);
    scheduler.schedule(a);
    scheduler.forget(a);
    await sleep(MIN_FLUSH_INTERVAL_MS * 3);
    assert.equal(a.flushes.length, 0);
  });
});

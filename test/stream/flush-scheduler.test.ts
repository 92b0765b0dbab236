// When stream frames are written: at once after a quiet spell, and under load no sooner than a few
// times what flushes cost lately, so that writes to many clients cannot take all of the process's
// time, but no later than a latency budget while flushes are cheap enough to allow it.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { setImmediate as nextTurn, setTimeout as sleep } from 'node:timers/promises';
import {
  FLUSH_COST_MULTIPLE,
  FLUSH_LATENCY_BUDGET_MS,
  FlushScheduler,
  flushInterval,
  MAX_FLUSH_INTERVAL_MS,
  MIN_FLUSH_INTERVAL_MS,
  OVER_BUDGET_COST_MULTIPLE,
} from '../../src/stream/flush-scheduler.ts';

/** A flushable that records when it flushed and takes `costMs` of CPU doing it, "writing" to `writes` connections. */
function target(costMs: number, writes = 1) {
  const flushes: number[] = [];
  return {
    flushes,
    flush() {
      flushes.push(performance.now());
      const until = performance.now() + costMs;
      while (performance.now() < until) {
        // Busy: stands for writing to many sockets.
      }
      return writes;
    },
  };
}

/** Timers count from the loop's cached clock, which lags performance.now() on a busy machine. */
const TIMER_SLACK_MS = 3;

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

  it('spaces flushes by a multiple of what flushes cost lately, and never less than the minimum', async () => {
    const scheduler = new FlushScheduler();
    const cheap = target(0);
    scheduler.schedule(cheap);
    await until(() => cheap.flushes.length === 1);
    scheduler.schedule(cheap);
    await until(() => cheap.flushes.length === 2);
    assert.ok(
      cheap.flushes[1]! - cheap.flushes[0]! >= MIN_FLUSH_INTERVAL_MS - TIMER_SLACK_MS,
      'at least the minimum interval apart',
    );

    const costMs = 8;
    const costly = target(costMs);
    // The cost is that of the last few flushes: one costly flush alone does not set it.
    for (let i = 0; i < 3; i++) {
      scheduler.schedule(costly);
      await until(() => costly.flushes.length === i + 1);
    }
    scheduler.schedule(costly);
    await until(() => costly.flushes.length === 4);
    const gap = costly.flushes[3]! - costly.flushes[2]!;
    assert.ok(
      gap >= costMs * FLUSH_COST_MULTIPLE - TIMER_SLACK_MS,
      `an ${costMs} ms flush is followed ${gap} ms later`,
    );
  });

  it('does not stretch the next wait after one slow flush (a collection or a descheduled process)', async () => {
    const scheduler = new FlushScheduler();
    const costs = [0, 0, 60, 0];
    const flushes: number[] = [];
    const spiky = {
      flush() {
        flushes.push(performance.now());
        const until = performance.now() + (costs[flushes.length - 1] ?? 0);
        while (performance.now() < until) {
          // Busy.
        }
        return 1;
      },
    };
    for (let i = 0; i < costs.length; i++) {
      scheduler.schedule(spiky);
      await until(() => flushes.length === i + 1);
    }
    const gap = flushes[3]! - flushes[2]!;
    assert.ok(
      gap < (60 * FLUSH_COST_MULTIPLE) / 2,
      `after a 60 ms flush among cheap ones the next came ${gap} ms later`,
    );
  });

  it('tells its listeners what each flush cost and how many connections it wrote to, until they stop listening', async () => {
    const scheduler = new FlushScheduler();
    const seen: { durationMs: number; writes: number }[] = [];
    const stop = scheduler.onFlush((flush) => seen.push(flush));
    const a = target(4, 300);
    const b = target(0, 2);
    scheduler.schedule(a);
    scheduler.schedule(b);
    await until(() => a.flushes.length === 1 && b.flushes.length === 1);
    assert.equal(seen.length, 1, 'one record for the flush of both');
    assert.equal(seen[0]!.writes, 302);
    assert.ok(seen[0]!.durationMs >= 4, `took ${seen[0]!.durationMs} ms`);
    stop();
    scheduler.schedule(b);
    await until(() => b.flushes.length === 2);
    assert.equal(seen.length, 1, 'a stopped listener hears nothing more');
  });

  it('bounds the interval by the latency budget unless flushes cost more than the budget allows', () => {
    assert.equal(flushInterval(0), MIN_FLUSH_INTERVAL_MS);
    assert.equal(flushInterval(5), 5 * FLUSH_COST_MULTIPLE);
    assert.equal(flushInterval(FLUSH_LATENCY_BUDGET_MS / 2), FLUSH_LATENCY_BUDGET_MS);
    // Costlier still: writes take at most 1/OVER_BUDGET_COST_MULTIPLE of the time, so the process keeps up.
    assert.equal(flushInterval(FLUSH_LATENCY_BUDGET_MS), FLUSH_LATENCY_BUDGET_MS * OVER_BUDGET_COST_MULTIPLE);
    assert.equal(flushInterval(MAX_FLUSH_INTERVAL_MS), MAX_FLUSH_INTERVAL_MS);
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

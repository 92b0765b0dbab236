// After a burst of closed streams svc asks for one full garbage collection, once the closing has gone
// quiet, and not more often than every MIN_INTERVAL_MS; ordinary churn asks for none.
import { describe, it, mock } from 'node:test';
import assert from 'node:assert/strict';
import {
  BURST_CLOSES,
  BURST_WINDOW_MS,
  MIN_INTERVAL_MS,
  QUIET_MS,
  StreamExodus,
} from '../../src/stream/stream-exodus.ts';

describe('StreamExodus', () => {
  const setup = (ctx: { after(fn: () => void): void }) => {
    mock.timers.enable({ apis: ['setTimeout', 'Date'], now: 1_000_000 });
    let collections = 0;
    const exodus = new StreamExodus(() => collections++);
    ctx.after(() => {
      exodus.stop();
      mock.timers.reset();
    });
    const close = (count: number) => {
      for (let i = 0; i < count; i++) exodus.closed();
    };
    return { close, collections: () => collections };
  };

  it('collects once, after a burst of closes has gone quiet', (ctx) => {
    const { close, collections } = setup(ctx);
    close(BURST_CLOSES - 1);
    mock.timers.tick(QUIET_MS * 4);
    assert.equal(collections(), 0, 'fewer than a burst');
    close(1);
    mock.timers.tick(QUIET_MS - 1);
    close(500);
    mock.timers.tick(QUIET_MS - 1);
    assert.equal(collections(), 0, 'still closing');
    mock.timers.tick(1);
    assert.equal(collections(), 1);
    mock.timers.tick(MIN_INTERVAL_MS * 2);
    assert.equal(collections(), 1, 'one per burst');
  });

  it('does not count closes spread wider than its window as a burst', (ctx) => {
    const { close, collections } = setup(ctx);
    for (let i = 0; i < 10; i++) {
      close(BURST_CLOSES / 2);
      mock.timers.tick(BURST_WINDOW_MS + 1);
    }
    assert.equal(collections(), 0);
  });

  it('collects at most once per interval, a later burst at the interval end', (ctx) => {
    const { close, collections } = setup(ctx);
    close(BURST_CLOSES);
    mock.timers.tick(QUIET_MS);
    assert.equal(collections(), 1);
    mock.timers.tick(BURST_WINDOW_MS + 1);
    close(BURST_CLOSES);
    mock.timers.tick(QUIET_MS);
    assert.equal(collections(), 1, 'too soon after the first');
    mock.timers.tick(MIN_INTERVAL_MS);
    assert.equal(collections(), 2);
  });
});

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { TargetLimiter } from '../../src/webhooks/targets/target-limiter.ts';

describe('TargetLimiter', () => {
  it('runs at most perTarget at once for one target, without holding back other targets', async () => {
    const limiter = new TargetLimiter(2);
    const signal = new AbortController().signal;
    const a1 = await limiter.acquire('a', signal);
    await limiter.acquire('a', signal);
    let third = false;
    const pending = limiter.acquire('a', signal).then((release) => {
      third = true;
      return release;
    });
    const b = await limiter.acquire('b', signal);
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(third, false);
    a1();
    a1(); // a second call of the same release frees nothing more
    (await pending)();
    assert.equal(third, true);
    b();
  });

  it('tryAcquire takes a free slot at once and answers undefined for a full target, sharing slots with acquire', async () => {
    const limiter = new TargetLimiter(1);
    const release = limiter.tryAcquire('a');
    assert.ok(release);
    assert.equal(limiter.tryAcquire('a'), undefined);
    assert.ok(limiter.tryAcquire('b'), 'other targets are not held back');
    let granted = false;
    const waiting = limiter.acquire('a', new AbortController().signal).then((next) => {
      granted = true;
      return next;
    });
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(granted, false);
    release();
    // The slot passed straight to the waiter: still none free.
    assert.equal(limiter.tryAcquire('a'), undefined);
    (await waiting)();
    assert.ok(limiter.tryAcquire('a'));
  });

  it('rejects waiters when the signal aborts, and they take no slot', async () => {
    const limiter = new TargetLimiter(1);
    const controller = new AbortController();
    const release = await limiter.acquire('a', controller.signal);
    const waiting = limiter.acquire('a', controller.signal);
    controller.abort();
    await assert.rejects(waiting);
    release();
    const again = await limiter.acquire('a', new AbortController().signal);
    again();
  });
});

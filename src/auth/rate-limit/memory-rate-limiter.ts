// Fixed-window counters in this process's memory. consume() checks and increments without awaiting
// anything, so on Node's single thread it is atomic by construction.
import { decide, type RateLimitDecision, type RateLimiter } from './rate-limiter.ts';

interface Window {
  count: number;
  endsAt: number;
  windowMs: number;
}

/** Expired windows are swept after this many new ones, keeping memory bounded by active keys. */
const SWEEP_EVERY = 10_000;

export class MemoryRateLimiter implements RateLimiter {
  readonly #windows = new Map<string, Window>();
  #createdSinceSweep = 0;

  consume(bucket: string, max: number, windowMs: number): RateLimitDecision {
    return this.consumeNow(bucket, max, windowMs);
  }

  consumeNow(bucket: string, max: number, windowMs: number, now = Date.now()): RateLimitDecision {
    let window = this.#windows.get(bucket);
    // A changed window length (admin PATCH) starts a fresh window rather than mixing the two.
    if (!window || window.endsAt <= now || window.windowMs !== windowMs) {
      window = { count: 0, endsAt: now + windowMs, windowMs };
      this.#windows.set(bucket, window);
      if (++this.#createdSinceSweep >= SWEEP_EVERY) this.#sweep(now);
    }
    window.count++;
    return decide(window.count, max, window.endsAt - now);
  }

  release(bucket: string, windowMs: number, now = Date.now()): void {
    const window = this.#windows.get(bucket);
    if (window && window.endsAt > now && window.windowMs === windowMs && window.count > 0) window.count--;
  }

  reset(bucket: string, windowMs: number): void {
    if (this.#windows.get(bucket)?.windowMs === windowMs) this.#windows.delete(bucket);
  }

  #sweep(now: number): void {
    this.#createdSinceSweep = 0;
    for (const [bucket, window] of this.#windows) if (window.endsAt <= now) this.#windows.delete(bucket);
  }

  ready(): Promise<void> {
    return Promise.resolve();
  }

  close(): Promise<void> {
    this.#windows.clear();
    return Promise.resolve();
  }
}

// One interface for counting requests in fixed windows, whatever holds the counters (memory, Redis).

export interface RateLimitDecision {
  allowed: boolean;
  limit: number;
  /** Requests left in the current window after this one. */
  remaining: number;
  /** Milliseconds until the current window ends. */
  resetMs: number;
}

export interface RateLimiter {
  /**
   * Counts one request against `bucket` and decides, atomically: of N concurrent calls against a
   * limit of M within one window, exactly M are allowed. A limiter that counts in memory answers at
   * once: a promise here would cost every keyed request a microtask for nothing.
   */
  consume(bucket: string, max: number, windowMs: number): RateLimitDecision | Promise<RateLimitDecision>;
  /** Takes back one counted request of the current window (one that turned out not to count); never below zero. */
  release(bucket: string, windowMs: number): void | Promise<void>;
  /** Forgets the current window: the next request starts a new one. */
  reset(bucket: string, windowMs: number): void | Promise<void>;
  /** Settles once the limiter can serve shared counts, or has given up and fallen back; never rejects. */
  ready(): Promise<void>;
  close(): Promise<void>;
}

export function decide(count: number, max: number, resetMs: number): RateLimitDecision {
  return { allowed: count <= max, limit: max, remaining: Math.max(0, max - count), resetMs: Math.max(0, resetMs) };
}

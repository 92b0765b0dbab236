// Fixed-window counters in Redis, shared by every process of a deployment. INCR and PEXPIRE run in
// one Lua script, so the count is atomic across processes. When Redis cannot be reached the limiter
// counts in memory instead (per process, so looser) and says so in the log, rather than failing requests.
import type { Redis, Result } from 'ioredis';
import { loadIoredis } from '../../tools/optional-packages.ts';
import type { FastifyBaseLogger } from 'fastify';
import { decide, type RateLimitDecision, type RateLimiter } from './rate-limiter.ts';
import { MemoryRateLimiter } from './memory-rate-limiter.ts';

const CONSUME_SCRIPT = `
local count = redis.call('INCR', KEYS[1])
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  ttl = tonumber(ARGV[1])
end
return {count, ttl}
`;

/** DECR only a window that still exists: a bare DECR would create a key without expiry. */
const RELEASE_SCRIPT = `
local count = tonumber(redis.call('GET', KEYS[1]) or '0')
if count > 0 then
  return redis.call('DECR', KEYS[1])
end
return 0
`;

export interface RedisRateLimiterOptions {
  url: string;
  /** Namespaces the counters (several deployments, or tests, on one Redis). */
  keyPrefix?: string;
  log: FastifyBaseLogger;
}

declare module 'ioredis' {
  interface RedisCommander<Context> {
    /** CONSUME_SCRIPT, registered with defineCommand (EVALSHA, falling back to EVAL). */
    svcRateLimit(key: string, windowMs: number): Result<[number, number], Context>;
    /** RELEASE_SCRIPT. */
    svcRateLimitRelease(key: string): Result<number, Context>;
  }
}

export class RedisRateLimiter implements RateLimiter {
  readonly #redis: Redis;
  readonly #prefix: string;
  readonly #log: FastifyBaseLogger;
  readonly #fallback = new MemoryRateLimiter();
  #degraded = false;

  constructor(options: RedisRateLimiterOptions) {
    this.#prefix = options.keyPrefix ?? 'svc:';
    this.#log = options.log;
    const { Redis: RedisClient } = loadIoredis();
    this.#redis = new RedisClient(options.url, {
      // Fail fast while disconnected instead of queueing: a request must not wait on a dead Redis.
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
      connectTimeout: 2000,
      lazyConnect: false,
    });
    this.#redis.defineCommand('svcRateLimit', { numberOfKeys: 1, lua: CONSUME_SCRIPT });
    this.#redis.defineCommand('svcRateLimitRelease', { numberOfKeys: 1, lua: RELEASE_SCRIPT });
    this.#redis.on('error', (error: Error) => this.#degrade(error));
    this.#redis.on('ready', () => {
      if (this.#degraded) this.#log.warn('Redis is reachable again: rate limits are shared between processes again');
      this.#degraded = false;
    });
  }

  /** Waits for the first connection (at most connectTimeout); on failure the warning is already logged. */
  async ready(): Promise<void> {
    if (this.#redis.status === 'ready') return;
    await new Promise<void>((resolve) => {
      const done = (): void => {
        this.#redis.off('ready', done);
        this.#redis.off('error', done);
        resolve();
      };
      this.#redis.once('ready', done);
      this.#redis.once('error', done);
    });
  }

  async consume(bucket: string, max: number, windowMs: number): Promise<RateLimitDecision> {
    // Not connected (yet, or any more): count locally. A lost connection has already logged its
    // warning through the 'error' event; a first connection still in progress is no cause for one.
    if (this.#redis.status !== 'ready') return this.#fallback.consume(bucket, max, windowMs);
    try {
      const [count, ttl] = await this.#redis.svcRateLimit(this.#key(bucket, windowMs), windowMs);
      return decide(Number(count), max, Number(ttl));
    } catch (error) {
      this.#degrade(error as Error);
      return this.#fallback.consume(bucket, max, windowMs);
    }
  }

  async release(bucket: string, windowMs: number): Promise<void> {
    if (this.#redis.status !== 'ready') return this.#fallback.release(bucket, windowMs);
    try {
      await this.#redis.svcRateLimitRelease(this.#key(bucket, windowMs));
    } catch (error) {
      this.#degrade(error as Error);
      this.#fallback.release(bucket, windowMs);
    }
  }

  async reset(bucket: string, windowMs: number): Promise<void> {
    if (this.#redis.status !== 'ready') return this.#fallback.reset(bucket, windowMs);
    try {
      await this.#redis.del(this.#key(bucket, windowMs));
    } catch (error) {
      this.#degrade(error as Error);
      this.#fallback.reset(bucket, windowMs);
    }
  }

  #key(bucket: string, windowMs: number): string {
    return `${this.#prefix}rl:${bucket}:${windowMs}`;
  }

  #degrade(error: Error): void {
    if (this.#degraded) return;
    this.#degraded = true;
    this.#log.warn({ err: error }, 'Redis is unreachable: rate limits fall back to per-process memory counters');
  }

  async close(): Promise<void> {
    await this.#fallback.close();
    this.#redis.disconnect();
  }
}

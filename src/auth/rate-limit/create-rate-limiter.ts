// Picks the rate limiter: Redis when the deployment has one (several processes share limits), else memory.
import type { FastifyBaseLogger } from 'fastify';
import type { SvcConfig } from '../../config/config-types.ts';
import type { RateLimiter } from './rate-limiter.ts';
import { MemoryRateLimiter } from './memory-rate-limiter.ts';
import { RedisRateLimiter } from './redis-rate-limiter.ts';

export function createRateLimiter(
  config: SvcConfig,
  log: FastifyBaseLogger,
  options: { redisKeyPrefix?: string } = {},
): RateLimiter {
  const url = config.redis?.url;
  if (url === undefined || url === '') return new MemoryRateLimiter();
  return new RedisRateLimiter({
    url,
    log,
    ...(options.redisKeyPrefix !== undefined ? { keyPrefix: options.redisKeyPrefix } : {}),
  });
}

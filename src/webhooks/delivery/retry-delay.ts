// Delay before the next attempt (docs/webhooks.md, Retries and delivery records): exponential backoff, possibly lengthened by Retry-After.
import type { RetryConfig } from '../subscriptions/retry-config.ts';

/**
 * Milliseconds to wait after attempt `attempt` failed, before attempt `attempt + 1`:
 * `min(initialDelayMs * backoffMultiplier ^ (attempt - 1), maxDelayMs)`. A receiver's Retry-After may
 * ask for longer (never shorter), still capped at maxDelayMs (docs/webhooks.md).
 */
export function retryDelayMs(config: RetryConfig, attempt: number, retryAfterMs?: number): number {
  const backoff = Math.min(config.initialDelayMs * config.backoffMultiplier ** (attempt - 1), config.maxDelayMs);
  const wanted = retryAfterMs !== undefined && retryAfterMs > backoff ? retryAfterMs : backoff;
  return Math.round(Math.min(wanted, config.maxDelayMs));
}

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { retryDelayMs } from '../../src/webhooks/delivery/retry-delay.ts';
import { parseRetryAfter } from '../../src/webhooks/delivery/parse-retry-after.ts';
import { DEFAULT_RETRY_CONFIG } from '../../src/webhooks/subscriptions/retry-config.ts';

describe('retryDelayMs', () => {
  it('follows min(initialDelayMs * backoffMultiplier ^ (attempt - 1), maxDelayMs) with the spec defaults', () => {
    assert.deepEqual(
      [1, 2, 3, 4, 5, 9, 10].map((n) => retryDelayMs(DEFAULT_RETRY_CONFIG, n)),
      [1000, 2000, 4000, 8000, 16000, 256000, 300000],
    );
  });

  it('applies custom settings, fractional multipliers included', () => {
    const config = { maxAttempts: 10, initialDelayMs: 100, backoffMultiplier: 1.5, maxDelayMs: 1000 };
    assert.deepEqual(
      [1, 2, 3, 6, 7].map((n) => retryDelayMs(config, n)),
      [100, 150, 225, 759, 1000],
    );
  });

  it('lengthens the delay to a longer Retry-After, capped at maxDelayMs', () => {
    const config = { maxAttempts: 5, initialDelayMs: 100, backoffMultiplier: 2, maxDelayMs: 5000 };
    assert.equal(retryDelayMs(config, 1, 2000), 2000);
    assert.equal(retryDelayMs(config, 1, 60000), 5000);
  });

  it('never shortens the backoff for a shorter Retry-After', () => {
    assert.equal(retryDelayMs(DEFAULT_RETRY_CONFIG, 3, 1000), 4000);
  });
});

describe('parseRetryAfter', () => {
  const now = Date.parse('2025-01-01T00:00:00Z');
  it('reads delay-seconds', () => assert.equal(parseRetryAfter('7', now), 7000));
  it('reads an HTTP-date relative to now', () =>
    assert.equal(parseRetryAfter('Wed, 01 Jan 2025 00:00:30 GMT', now), 30000));
  it('treats a past date as no wait', () => assert.equal(parseRetryAfter('Tue, 31 Dec 2024 23:00:00 GMT', now), 0));
  it('ignores absent or unreadable values', () => {
    assert.equal(parseRetryAfter(undefined, now), undefined);
    assert.equal(parseRetryAfter('soon', now), undefined);
    assert.equal(parseRetryAfter('-5', now), undefined);
  });
});

// Key rate limits (spec 8, docs/authentication.md): window limits with RateLimit-* and Retry-After, exact counting
// under concurrency, the `remaining` quota and its refill, and the Redis-backed limiter.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { testDialects } from '../helpers/test-databases.ts';
import { TEST_ADMIN_TOKEN } from '../helpers/test-config.ts';
import { MemoryRateLimiter } from '../../src/auth/rate-limit/memory-rate-limiter.ts';
import { RedisRateLimiter } from '../../src/auth/rate-limit/redis-rate-limiter.ts';
import { computeRefill } from '../../src/auth/keys/usage-quota.ts';
import {
  bearer,
  captureLogs,
  errorCodes,
  startApp,
  startAuthSuite,
  testLogger,
  userWithKey,
  type AuthSuite,
} from './auth-fixtures.ts';

const ADMIN = { authorization: `Bearer ${TEST_ADMIN_TOKEN}` };
const REDIS_URL = process.env.TEST_REDIS_URL;

describe('memory rate limiter', () => {
  it('allows max requests per window, then refuses until the window ends', () => {
    const limiter = new MemoryRateLimiter();
    const results = [0, 1, 2, 3].map(() => limiter.consumeNow('k', 3, 1000, 10_000));
    assert.deepEqual(
      results.map((r) => r.allowed),
      [true, true, true, false],
    );
    assert.deepEqual(
      results.map((r) => r.remaining),
      [2, 1, 0, 0],
    );
    assert.equal(results[3]?.resetMs, 1000);
    assert.equal(limiter.consumeNow('k', 3, 1000, 10_999).allowed, false);
    assert.equal(limiter.consumeNow('k', 3, 1000, 11_000).allowed, true);
  });

  it('keeps separate windows per bucket', () => {
    const limiter = new MemoryRateLimiter();
    assert.equal(limiter.consumeNow('a', 1, 1000, 0).allowed, true);
    assert.equal(limiter.consumeNow('b', 1, 1000, 0).allowed, true);
    assert.equal(limiter.consumeNow('a', 1, 1000, 0).allowed, false);
  });

  it('gives back one request on release (never below zero) and starts afresh on reset', () => {
    const limiter = new MemoryRateLimiter();
    assert.equal(limiter.consumeNow('k', 2, 1000, 0).remaining, 1);
    limiter.release('k', 1000, 0);
    limiter.release('k', 1000, 0);
    assert.equal(limiter.consumeNow('k', 2, 1000, 0).remaining, 1);
    assert.equal(limiter.consumeNow('k', 2, 1000, 0).allowed, true);
    assert.equal(limiter.consumeNow('k', 2, 1000, 0).allowed, false);
    limiter.reset('k', 1000);
    assert.equal(limiter.consumeNow('k', 2, 1000, 0).remaining, 1);
  });
});

describe('quota refill arithmetic', () => {
  const base = { remaining: 0, refillInterval: 1000, refillAmount: 10, lastRefillAt: new Date(0).toISOString() };
  it('does nothing before an interval has passed', () => {
    assert.equal(computeRefill(base, 999), null);
  });
  it('adds refillAmount after an interval, advancing by whole intervals', () => {
    assert.deepEqual(computeRefill(base, 1500), { remaining: 10, lastRefillAt: new Date(1000).toISOString() });
  });
  it('tops up to refillAmount at most, even after many intervals', () => {
    assert.deepEqual(computeRefill({ ...base, remaining: 4 }, 10_000), {
      remaining: 10,
      lastRefillAt: new Date(10_000).toISOString(),
    });
  });
  it('never cuts a quota that is above refillAmount', () => {
    assert.equal(computeRefill({ ...base, remaining: 50 }, 5000)?.remaining, 50);
  });
  it('ignores keys without a refill schedule', () => {
    assert.equal(computeRefill({ ...base, refillInterval: null, refillAmount: null }, 5000), null);
  });
});

for (const dialect of testDialects()) {
  describe(`key rate limits on ${dialect}`, () => {
    let suite: AuthSuite;
    before(async () => {
      suite = await startAuthSuite(dialect);
    });
    after(() => suite.close());

    const get = (key: string) => suite.t.inject({ method: 'GET', url: '/v1/posts', headers: bearer(key) });

    it('sends RateLimit-* headers and answers 429 RATE_LIMITED with Retry-After past the limit', async () => {
      const { key } = await userWithKey(suite.t, { rateLimitMax: 3 });
      for (const expected of [2, 1, 0]) {
        const response = await get(key);
        assert.equal(response.statusCode, 200);
        assert.equal(response.headers['ratelimit-limit'], '3');
        assert.equal(response.headers['ratelimit-remaining'], String(expected));
        const reset = Number(response.headers['ratelimit-reset']);
        assert.ok(reset > 0 && reset <= 60, `RateLimit-Reset ${reset}`);
      }
      const limited = await get(key);
      assert.equal(limited.statusCode, 429);
      assert.deepEqual(errorCodes(limited), ['RATE_LIMITED']);
      const retryAfter = Number(limited.headers['retry-after']);
      assert.ok(retryAfter >= 1 && retryAfter <= 60, `Retry-After ${retryAfter}`);
      assert.equal(limited.headers['ratelimit-remaining'], '0');
    });

    it('applies the global default to keys issued without limits', async () => {
      const { key } = await userWithKey(suite.t);
      const response = await get(key);
      assert.equal(response.headers['ratelimit-limit'], String(suite.config.apiKeys.rateLimit.max));
    });

    it('lets exactly M of N concurrent requests through', async () => {
      const { key } = await userWithKey(suite.t, { rateLimitMax: 5 });
      const responses = await Promise.all(Array.from({ length: 25 }, () => get(key)));
      const statuses = responses.map((r) => r.statusCode);
      assert.equal(statuses.filter((s) => s === 200).length, 5);
      assert.equal(statuses.filter((s) => s === 429).length, 20);
    });

    it('opens a new window once the old one ends (window shortened by the admin API)', async () => {
      const { key, keyId } = await userWithKey(suite.t, { rateLimitMax: 2 });
      const patch = await suite.t.inject({
        method: 'PATCH',
        url: `/admin/keys/${keyId}`,
        headers: ADMIN,
        payload: { rateLimitTimeWindow: 400 },
      });
      assert.equal(patch.statusCode, 200, patch.body);
      assert.equal((await get(key)).statusCode, 200);
      assert.equal((await get(key)).statusCode, 200);
      assert.equal((await get(key)).statusCode, 429);
      await sleep(450);
      assert.equal((await get(key)).statusCode, 200);
    });

    it('does not limit a key whose rate limiting the admin switched off', async () => {
      const { key, keyId } = await userWithKey(suite.t, { rateLimitMax: 1 });
      await suite.t.inject({
        method: 'PATCH',
        url: `/admin/keys/${keyId}`,
        headers: ADMIN,
        payload: { rateLimitEnabled: false },
      });
      for (let i = 0; i < 3; i++) {
        const response = await get(key);
        assert.equal(response.statusCode, 200);
        assert.equal(response.headers['ratelimit-limit'], undefined);
      }
    });

    it('answers 429 USAGE_EXCEEDED when the quota is used up, and serves again after a refill', async () => {
      const { key, keyId } = await userWithKey(suite.t, { remaining: 2, refillInterval: 1000, refillAmount: 2 });
      assert.equal((await get(key)).statusCode, 200);
      assert.equal((await get(key)).statusCode, 200);
      const exceeded = await get(key);
      assert.equal(exceeded.statusCode, 429);
      assert.deepEqual(errorCodes(exceeded), ['USAGE_EXCEEDED']);
      assert.equal(exceeded.headers['retry-after'], '1');
      await sleep(1100);
      assert.equal((await get(key)).statusCode, 200);
      assert.equal((await get(key)).statusCode, 200);
      assert.equal((await get(key)).statusCode, 429);
      const row = await suite.t.inject({ method: 'GET', url: `/admin/keys/${keyId}`, headers: ADMIN });
      assert.equal(row.json().data.attributes.remaining, 0);
    });

    it('never lets concurrent requests overdraw the quota', async () => {
      const { key } = await userWithKey(suite.t, { remaining: 4 });
      const responses = await Promise.all(Array.from({ length: 20 }, () => get(key)));
      assert.equal(responses.filter((r) => r.statusCode === 200).length, 4);
      assert.ok(responses.filter((r) => r.statusCode === 429).every((r) => errorCodes(r)[0] === 'USAGE_EXCEEDED'));
    });

    it('answers USAGE_EXCEEDED without Retry-After when the quota has no refill', async () => {
      const { key } = await userWithKey(suite.t, { remaining: 1 });
      assert.equal((await get(key)).statusCode, 200);
      const exceeded = await get(key);
      assert.deepEqual(errorCodes(exceeded), ['USAGE_EXCEEDED']);
      assert.equal(exceeded.headers['retry-after'], undefined);
    });
  });
}

describe('Redis rate limiter', { skip: REDIS_URL ? false : 'TEST_REDIS_URL is not set' }, () => {
  const log = testLogger();

  it('shares one limit between limiters (processes): exactly M of N concurrent requests pass', async () => {
    const keyPrefix = `svc-test-${randomBytes(6).toString('hex')}:`;
    const a = new RedisRateLimiter({ url: REDIS_URL!, keyPrefix, log });
    const b = new RedisRateLimiter({ url: REDIS_URL!, keyPrefix, log });
    try {
      await Promise.all([a.ready(), b.ready()]);
      const decisions = await Promise.all(
        Array.from({ length: 30 }, (_, i) => (i % 2 ? a : b).consume('key-1', 7, 60_000)),
      );
      assert.equal(decisions.filter((d) => d.allowed).length, 7);
      const last = decisions.filter((d) => !d.allowed)[0];
      assert.ok(last && last.remaining === 0 && last.resetMs > 0 && last.resetMs <= 60_000);
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('gives back one request on release, never below zero nor creating a window, and forgets it on reset', async () => {
    const keyPrefix = `svc-test-${randomBytes(6).toString('hex')}:`;
    const limiter = new RedisRateLimiter({ url: REDIS_URL!, keyPrefix, log });
    try {
      await limiter.ready();
      await limiter.release('absent', 60_000);
      assert.equal((await limiter.consume('absent', 1, 60_000)).allowed, true, 'release made a window of its own');
      assert.equal((await limiter.consume('k', 2, 60_000)).remaining, 1);
      await limiter.release('k', 60_000);
      await limiter.release('k', 60_000);
      assert.equal((await limiter.consume('k', 2, 60_000)).remaining, 1);
      assert.equal((await limiter.consume('k', 2, 60_000)).allowed, true);
      assert.equal((await limiter.consume('k', 2, 60_000)).allowed, false);
      await limiter.reset('k', 60_000);
      const fresh = await limiter.consume('k', 2, 60_000);
      assert.equal(fresh.remaining, 1);
      assert.ok(fresh.resetMs > 59_000, 'a reset window starts a new expiry');
    } finally {
      await limiter.close();
    }
  });

  it('expires the window in Redis', async () => {
    const limiter = new RedisRateLimiter({
      url: REDIS_URL!,
      keyPrefix: `svc-test-${randomBytes(6).toString('hex')}:`,
      log,
    });
    try {
      await limiter.ready();
      assert.equal((await limiter.consume('k', 1, 200)).allowed, true);
      assert.equal((await limiter.consume('k', 1, 200)).allowed, false);
      await sleep(250);
      assert.equal((await limiter.consume('k', 1, 200)).allowed, true);
    } finally {
      await limiter.close();
    }
  });

  for (const dialect of testDialects()) {
    it(`limits a key across two apps sharing the database and Redis (${dialect})`, async () => {
      const suite = await startAuthSuite(dialect, { redis: { url: REDIS_URL! } });
      const second = await startApp(suite.config, suite.t.ctx.store);
      try {
        const { key } = await userWithKey(suite.t, { rateLimitMax: 6 });
        const apps = [suite.t, second];
        const responses = await Promise.all(
          Array.from({ length: 20 }, (_, i) =>
            apps[i % 2]!.inject({ method: 'GET', url: '/v1/posts', headers: bearer(key) }),
          ),
        );
        assert.equal(responses.filter((r) => r.statusCode === 200).length, 6);
        assert.equal(responses.filter((r) => r.statusCode === 429).length, 14);
      } finally {
        await second.close();
        await suite.close();
      }
    });
  }
});

describe('Redis rate limiter when Redis is unreachable', () => {
  it('falls back to memory counters and logs one warning', async () => {
    const { stream, lines } = captureLogs();
    const limiter = new RedisRateLimiter({ url: 'redis://127.0.0.1:1', log: testLogger(stream) });
    try {
      await limiter.ready(); // settles (does not hang or throw) when the connection fails
      const decisions = await Promise.all([1, 2, 3].map(() => limiter.consume('k', 2, 60_000)));
      assert.deepEqual(
        decisions.map((d) => d.allowed),
        [true, true, false],
      );
      await sleep(50);
      const warnings = lines.filter((l) => /Redis is unreachable/.test(l.msg));
      assert.equal(warnings.length, 1);
    } finally {
      await limiter.close();
    }
  });
});

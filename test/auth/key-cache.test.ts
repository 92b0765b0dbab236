// The in-memory key cache: hits within the TTL, one query for concurrent misses, and invalidation
// that also beats a load already in flight.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { KeyCache, type CachedKey } from '../../src/auth/keys/key-cache.ts';
import { parseBearerToken } from '../../src/auth/bearer-token.ts';
import { ApiError } from '../../src/errors/api-error.ts';

interface Key {
  id: string;
  userId: string;
  version: number;
}

function cacheWith(ttlMs: number, maxEntries = 100) {
  let loads = 0;
  let version = 0;
  const cache = new KeyCache<Key>(
    async (hash) => {
      loads++;
      await sleep(5);
      if (hash === 'unknown') return null;
      return {
        key: { id: `id-${hash}`, userId: `user-${hash}`, version: ++version },
        owner: { primaryRole: 'user', allowedRoles: [] },
      };
    },
    { ttlMs, maxEntries },
  );
  return { cache, loads: () => loads };
}

const versionOf = (cached: CachedKey<Key> | null): number | undefined => cached?.key.version;

describe('key cache', () => {
  it('serves repeated lookups from memory within the TTL', async () => {
    const { cache, loads } = cacheWith(10_000);
    await cache.get('a');
    await cache.get('a');
    await cache.get('a');
    assert.equal(loads(), 1);
  });

  it('shares one load between concurrent misses', async () => {
    const { cache, loads } = cacheWith(10_000);
    const results = await Promise.all(Array.from({ length: 50 }, () => cache.get('a')));
    assert.equal(loads(), 1);
    assert.ok(results.every((r) => versionOf(r) === 1));
  });

  it('reloads after the TTL', async () => {
    const { cache, loads } = cacheWith(20);
    await cache.get('a');
    await sleep(30);
    await cache.get('a');
    assert.equal(loads(), 2);
  });

  it('caches unknown hashes too, so guessing does not cost a query each time', async () => {
    const { cache, loads } = cacheWith(10_000);
    assert.equal(await cache.get('unknown'), null);
    assert.equal(await cache.get('unknown'), null);
    assert.equal(loads(), 1);
  });

  it('drops entries of an invalidated key or user', async () => {
    const { cache, loads } = cacheWith(10_000);
    await cache.get('a');
    await cache.get('b');
    cache.invalidateKey('id-a');
    cache.invalidateUser('user-b');
    await cache.get('a');
    await cache.get('b');
    assert.equal(loads(), 4);
  });

  it('does not keep a result whose load began before an invalidation', async () => {
    const { cache, loads } = cacheWith(10_000);
    const pending = cache.get('a');
    cache.invalidateKey('id-a');
    await pending;
    await cache.get('a');
    assert.equal(loads(), 2);
  });

  it('stays within maxEntries', async () => {
    const { cache, loads } = cacheWith(10_000, 2);
    await cache.get('a');
    await cache.get('b');
    await cache.get('c');
    await cache.get('a');
    assert.equal(loads(), 4, 'the oldest entry was evicted');
  });
});

describe('bearer token parsing', () => {
  it('accepts Bearer in any case', () => {
    assert.equal(parseBearerToken('bearer svc_abc', undefined), 'svc_abc');
    assert.equal(parseBearerToken('BEARER svc_abc', undefined), 'svc_abc');
  });

  it('uses the query token only without an Authorization header', () => {
    assert.equal(parseBearerToken(undefined, 'svc_q'), 'svc_q');
    assert.equal(parseBearerToken('Bearer svc_h', 'svc_q'), 'svc_h');
  });

  for (const header of ['Token svc_abc', 'Bearer svc_a\u00e9', 'Bearer  ', 'svc_abc']) {
    it(`refuses ${JSON.stringify(header)} with 401 UNAUTHORIZED and WWW-Authenticate`, () => {
      assert.throws(
        () => parseBearerToken(header, undefined),
        (error: unknown) =>
          error instanceof ApiError && error.code === 'UNAUTHORIZED' && error.headers['WWW-Authenticate'] === 'Bearer',
      );
    });
  }
});

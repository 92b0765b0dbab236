// The `idempotency` section: defaults filled key by key, bad values refused at their dotted path.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { IDEMPOTENCY_DEFAULTS } from '../../src/config/idempotency-settings.ts';
import { validateConfig } from '../../src/resources/config-loader.ts';

describe('idempotency config', () => {
  it('is filled with the defaults when left out: answers kept 24 h, a running request holds its key 1 min', () => {
    const { config, problems } = validateConfig({ resources: {} });
    assert.deepEqual(problems, []);
    assert.deepEqual(config?.idempotency, { ttlMs: 86_400_000, leaseMs: 60_000 });
    assert.deepEqual(IDEMPOTENCY_DEFAULTS, { ttlMs: 86_400_000, leaseMs: 60_000 });
  });

  it('keeps the values given and fills the others', () => {
    const { config } = validateConfig({ resources: {}, idempotency: { ttlMs: 3_600_000 } });
    assert.deepEqual(config?.idempotency, { ttlMs: 3_600_000, leaseMs: 60_000 });
  });

  for (const [name, idempotency, path] of [
    ['a ttl under a second', { ttlMs: 10 }, 'idempotency.ttlMs'],
    ['a lease in words', { leaseMs: 'a minute' }, 'idempotency.leaseMs'],
    ['an unknown key', { maxKeys: 5 }, 'idempotency.maxKeys'],
  ] as const) {
    it(`refuses ${name} at ${path}`, () => {
      const { config, problems } = validateConfig({ resources: {}, idempotency });
      assert.equal(config, undefined);
      assert.deepEqual(
        problems.map((problem) => problem.path),
        [path],
      );
    });
  }
});

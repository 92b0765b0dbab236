// The `retention` section: defaults filled key by key, every bad value refused at its dotted path, and
// interpolated values read as numbers.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError } from '../../src/config/load-config.ts';
import { RETENTION_DEFAULTS } from '../../src/config/config-schema.ts';
import { validateConfig, loadConfigFromObject } from '../../src/resources/config-loader.ts';

const withRetention = (retention: unknown) => ({ resources: {}, retention });

describe('retention config', () => {
  it('is filled with the defaults when left out', () => {
    const { config, problems } = validateConfig({ resources: {} });
    assert.deepEqual(problems, []);
    assert.deepEqual(config?.retention, RETENTION_DEFAULTS);
    assert.deepEqual(RETENTION_DEFAULTS, {
      intervalMs: 60000,
      batchSize: 1000,
      events: { maxAgeMs: 86400000, maxCount: 1000000 },
      deliveries: { maxAgeMs: 604800000, maxCount: 1000000 },
    });
  });

  it('fills each key left out and keeps the ones given', () => {
    const { config } = validateConfig(
      withRetention({ intervalMs: 5000, events: { maxCount: 0 }, deliveries: { maxAgeMs: 0 } }),
    );
    assert.deepEqual(config?.retention, {
      intervalMs: 5000,
      batchSize: 1000,
      events: { maxAgeMs: 86400000, maxCount: 0 },
      deliveries: { maxAgeMs: 0, maxCount: 1000000 },
    });
  });

  const BAD: { name: string; retention: unknown; path: string; message: RegExp }[] = [
    { name: 'a section that is no object', retention: 60000, path: 'retention', message: /must be object/ },
    { name: 'an interval of 0', retention: { intervalMs: 0 }, path: 'retention.intervalMs', message: /must be >= 1/ },
    {
      name: 'an interval past what a timer can wait',
      retention: { intervalMs: 2 ** 31 },
      path: 'retention.intervalMs',
      message: /must be <= 2147483647/,
    },
    {
      name: 'an interval in words',
      retention: { intervalMs: 'hourly' },
      path: 'retention.intervalMs',
      message: /must be integer/,
    },
    { name: 'a batch of 0 rows', retention: { batchSize: 0 }, path: 'retention.batchSize', message: /must be >= 1/ },
    {
      name: 'a batch of a million rows',
      retention: { batchSize: 1_000_000 },
      path: 'retention.batchSize',
      message: /must be <= 100000/,
    },
    {
      name: 'an event age under a minute',
      retention: { events: { maxAgeMs: 1000 } },
      path: 'retention.events.maxAgeMs',
      message: /must be >= 60000/,
    },
    {
      name: 'a negative event count',
      retention: { events: { maxCount: -1 } },
      path: 'retention.events.maxCount',
      message: /must be >= 0/,
    },
    {
      name: 'a fractional delivery age',
      retention: { deliveries: { maxAgeMs: 1.5 } },
      path: 'retention.deliveries.maxAgeMs',
      message: /must be integer/,
    },
    {
      name: 'a negative delivery age',
      retention: { deliveries: { maxAgeMs: -1 } },
      path: 'retention.deliveries.maxAgeMs',
      message: /must be >= 0/,
    },
    {
      name: 'a delivery count as text',
      retention: { deliveries: { maxCount: 'many' } },
      path: 'retention.deliveries.maxCount',
      message: /must be integer/,
    },
    {
      name: 'an unknown limit',
      retention: { events: { maxRows: 10 } },
      path: 'retention.events.maxRows',
      message: /unknown key \(expected one of: maxAgeMs, maxCount\)/,
    },
    {
      name: 'an unknown table',
      retention: { streams: {} },
      path: 'retention.streams',
      message: /unknown key \(expected one of: intervalMs, batchSize, events, deliveries\)/,
    },
  ];
  for (const scenario of BAD) {
    it(`refuses ${scenario.name} at ${scenario.path}`, () => {
      const { config, problems } = validateConfig(withRetention(scenario.retention));
      assert.equal(config, undefined);
      assert.equal(problems.length, 1, JSON.stringify(problems));
      assert.equal(problems[0]?.path, scenario.path);
      assert.match(problems[0]?.message ?? '', scenario.message);
    });
  }

  it('lists every bad value at once', () => {
    const { problems } = validateConfig(
      withRetention({ intervalMs: 0, events: { maxAgeMs: 1 }, deliveries: { maxCount: -5 } }),
    );
    assert.deepEqual(
      problems.map((p) => p.path),
      ['retention.intervalMs', 'retention.events.maxAgeMs', 'retention.deliveries.maxCount'],
    );
  });

  it('reads ${…} values as numbers, and refuses one that is no number at its path', () => {
    const raw = { resources: {}, retention: { intervalMs: '${RETENTION_MS}', deliveries: { maxCount: '${KEEP}' } } };
    const config = loadConfigFromObject(raw, { RETENTION_MS: '30000', KEEP: '500' });
    assert.equal(config.retention?.intervalMs, 30000);
    assert.equal(config.retention?.deliveries.maxCount, 500);
    assert.throws(
      () => loadConfigFromObject(raw, { RETENTION_MS: 'soon', KEEP: '500' }),
      (error: unknown) => error instanceof ConfigError && error.problems.some((p) => p.path === 'retention.intervalMs'),
    );
  });
});

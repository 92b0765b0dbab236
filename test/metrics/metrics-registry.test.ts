// The registry writes valid Prometheus text: families announced by HELP and TYPE, cumulative histogram
// buckets, escaped label values, and a scrape that survives a failing collector.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { MetricsRegistry } from '../../src/metrics/metrics-registry.ts';
import { escapeLabelValue } from '../../src/metrics/exposition-format.ts';
import { assertHistogramsCumulative, parseExposition, sampleValue } from '../helpers/prometheus-text.ts';

describe('MetricsRegistry', () => {
  it('renders counters, gauges and histograms that parse, each with # HELP and # TYPE', () => {
    const registry = new MetricsRegistry();
    registry
      .counter<'route'>({ name: 'x_requests_total', help: 'Requests.', labelNames: ['route'] })
      .inc({ route: '/a' }, 3);
    registry.counter({ name: 'x_unlabelled_total', help: 'Shown as 0 before any increment.' });
    registry.gauge({ name: 'x_depth', help: 'Depth.' }).set({}, 7.5);
    registry
      .histogram<'route'>({ name: 'x_seconds', help: 'Latency.', labelNames: ['route'], buckets: [0.1, 1] })
      .observe({ route: '/a' }, 0.5);

    const text = registry.render();
    const families = parseExposition(text);
    assert.deepEqual([...families.keys()], ['x_requests_total', 'x_unlabelled_total', 'x_depth', 'x_seconds']);
    assert.deepEqual(
      [...families.values()].map((f) => f.type),
      ['counter', 'counter', 'gauge', 'histogram'],
    );
    assert.equal(sampleValue(families, 'x_requests_total', { route: '/a' }), 3);
    assert.equal(sampleValue(families, 'x_unlabelled_total'), 0);
    assert.equal(sampleValue(families, 'x_depth'), 7.5);
    assert.match(text, /^x_seconds_bucket\{route="\/a",le="0\.1"\} 0$/m);
  });

  it('writes histogram buckets cumulatively, with +Inf equal to the count and the sum of observations', () => {
    const registry = new MetricsRegistry();
    const histogram = registry.histogram<'op'>({
      name: 'x_seconds',
      help: 'Latency.',
      labelNames: ['op'],
      buckets: [0.01, 0.1, 1],
    });
    for (const value of [0.005, 0.01, 0.05, 0.5, 0.7, 3, 30]) histogram.observe({ op: 'read' }, value);
    histogram.observe({ op: 'write' }, 0.2);
    const families = parseExposition(registry.render());

    assert.equal(assertHistogramsCumulative(families), 2);
    const bucket = (le: string) => sampleValue(families, 'x_seconds_bucket', { op: 'read', le });
    // 0.01 is inside the 0.01 bucket: a bound is inclusive (`le`).
    assert.deepEqual(['0.01', '0.1', '1', '+Inf'].map(bucket), [2, 3, 5, 7]);
    assert.equal(sampleValue(families, 'x_seconds_count', { op: 'read' }), 7);
    assert.ok(Math.abs(sampleValue(families, 'x_seconds_sum', { op: 'read' })! - 34.265) < 1e-9);
    assert.deepEqual(
      ['0.01', '0.1', '1', '+Inf'].map((le) => sampleValue(families, 'x_seconds_bucket', { op: 'write', le })),
      [0, 0, 1, 1],
    );
  });

  it('escapes backslash, double quote and line feed in label values, and reads them back unchanged', () => {
    const registry = new MetricsRegistry();
    const counter = registry.counter<'path'>({
      name: 'x_total',
      help: 'Help with a \\ backslash\nand a second line.',
      labelNames: ['path'],
    });
    const hostile = ['a"b', 'back\\slash', 'two\nlines', '\\"\n', '{},="', 'ünïcødé ✓', ''];
    for (const value of hostile) counter.inc({ path: value });
    const text = registry.render();

    assert.equal(escapeLabelValue('a"b\\c\nd'), 'a\\"b\\\\c\\nd');
    assert.equal(text.split('\n').length, 2 + hostile.length + 1, 'no label value breaks a line');
    assert.match(text, /^# HELP x_total Help with a \\\\ backslash\\nand a second line\.$/m);
    const families = parseExposition(text);
    assert.deepEqual(
      families.get('x_total')!.samples.map((s) => s.labels.path),
      hostile,
    );
    assert.equal(families.get('x_total')!.help, 'Help with a \\ backslash\nand a second line.');
  });

  it('writes special values as Prometheus spells them', () => {
    const registry = new MetricsRegistry();
    const gauge = registry.gauge<'v'>({ name: 'x_value', help: 'Values.', labelNames: ['v'] });
    gauge.set({ v: 'inf' }, Infinity);
    gauge.set({ v: '-inf' }, -Infinity);
    gauge.set({ v: 'nan' }, NaN);
    gauge.set({ v: 'small' }, 1e-9);
    const text = registry.render();
    assert.match(text, /\{v="inf"\} \+Inf$/m);
    assert.match(text, /\{v="-inf"\} -Inf$/m);
    assert.match(text, /\{v="nan"\} NaN$/m);
    assert.equal(sampleValue(parseExposition(text), 'x_value', { v: 'small' }), 1e-9);
  });

  it('refuses what would produce invalid output or a misleading series', () => {
    const registry = new MetricsRegistry();
    const counter = registry.counter<'a'>({ name: 'x_total', help: 'h', labelNames: ['a'] });
    const misuse: [string, () => unknown][] = [
      ['a counter that decreases', () => counter.inc({ a: '1' }, -1)],
      ['a missing label', () => counter.inc({} as { a: string })],
      ['an unknown label', () => counter.inc({ a: '1', b: '2' } as { a: string })],
      ['a name registered twice', () => registry.gauge({ name: 'x_total', help: 'h' })],
      ['an invalid metric name', () => registry.gauge({ name: 'x-total', help: 'h' })],
      ['an invalid label name', () => registry.gauge({ name: 'x_g', help: 'h', labelNames: ['a-b'] })],
      ['a reserved label name', () => registry.gauge({ name: 'x_h', help: 'h', labelNames: ['__name'] })],
      ['le on a histogram', () => registry.histogram({ name: 'x_s', help: 'h', labelNames: ['le'] })],
      ['unsorted buckets', () => registry.histogram({ name: 'x_t', help: 'h', buckets: [1, 0.5] })],
    ];
    for (const [what, attempt] of misuse) assert.throws(attempt, Error, what);
  });

  it('runs every collector before a scrape and reports, without throwing, the one that failed', async () => {
    const registry = new MetricsRegistry();
    const gauge = registry.gauge({ name: 'x_depth', help: 'Depth.' });
    registry.onCollect('ok', async () => gauge.set({}, 42));
    registry.onCollect('broken', async () => {
      throw new Error('database down');
    });
    const failures = await registry.collect();
    assert.deepEqual(
      failures.map((f) => [f.collector, (f.error as Error).message]),
      [['broken', 'database down']],
    );
    assert.equal(sampleValue(parseExposition(registry.render()), 'x_depth'), 42);
  });
});

// The bench's per-request comparison of two CPU profiles (create with its webhook against create without).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { compareProfiles, formatComparison } from '../../bench/compare-cpu-profiles.ts';
import type { CpuProfile } from '../../bench/summarize-cpu-profile.ts';

const frame = (id: number, functionName: string, url: string) => ({
  id,
  callFrame: { functionName, url, lineNumber: 0 },
});

/** A profile of one root with three children; `samples` are [node id, µs since the previous sample]. */
function profile(samples: [number, number][]): CpuProfile {
  return {
    nodes: [
      { ...frame(1, '(root)', ''), children: [2, 3, 4] },
      frame(2, 'run', 'file:///app/node_modules/better-sqlite3/lib/statement.js'),
      frame(3, 'sendWebhook', 'file:///app/node_modules/undici/index.js'),
      frame(4, '(idle)', ''),
    ],
    startTime: 0,
    samples: samples.map(([id]) => id),
    timeDeltas: samples.map(([, us]) => us),
  };
}

describe('compareProfiles', () => {
  it('puts each profile per request and sorts by what the first adds', () => {
    // 10 requests: 300 µs in SQLite, 200 in undici, idle ignored; baseline 20 requests: 400 µs in SQLite.
    const scenario = profile([
      [2, 100],
      [2, 100],
      [2, 100],
      [3, 200],
      [4, 5000],
    ]);
    const baseline = profile([
      [2, 200],
      [2, 200],
      [4, 5000],
    ]);
    const comparison = compareProfiles(
      { profile: scenario, window: { startUs: 0, endUs: Infinity, requests: 10 } },
      { profile: baseline, window: { startUs: 0, endUs: Infinity, requests: 20 } },
    );
    assert.deepEqual(comparison.busyUs, [50, 20]);
    assert.deepEqual(comparison.byFile, [
      ['undici', 20, 0, 20],
      ['better-sqlite3', 30, 20, 10],
    ]);
    assert.equal(comparison.byFunction[0]![0], 'sendWebhook undici:1');
    assert.match(
      formatComparison(comparison, ['create', 'no hook']),
      /50\.0 µs \(create\), 20\.0 µs \(no hook\): 30\.0 µs added/,
    );
  });

  it('counts only the samples inside each measured window', () => {
    // Sample times are cumulative: 100, 200, 300. The window keeps the second only.
    const scenario = profile([
      [2, 100],
      [3, 100],
      [2, 100],
    ]);
    const comparison = compareProfiles(
      { profile: scenario, window: { startUs: 150, endUs: 250, requests: 1 } },
      { profile: profile([]), window: { startUs: 0, endUs: Infinity, requests: 1 } },
    );
    assert.deepEqual(comparison.byFile, [['undici', 100, 0, 100]]);
  });
});

// The per-key rate-limit rule: an override is accepted exactly when no interval lets the key make more
// requests than the default allows.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { overrideProblem } from '../../src/auth/rate-limit/override-within-default.ts';

/**
 * The most requests fixed windows of `windowMs` (each allowing `max`) admit in any span of `spanMs`:
 * counted by brute force over every alignment of the span against the windows.
 */
function mostInAnySpan(max: number, windowMs: number, spanMs: number): number {
  let most = 0;
  for (let start = 0; start < windowMs; start++) {
    const first = Math.floor(start / windowMs);
    const last = Math.floor((start + spanMs - 1) / windowMs);
    most = Math.max(most, (last - first + 1) * max);
  }
  return most;
}

describe('per-key rate-limit override rule', () => {
  const defaults = { max: 100_000, windowMs: 60_000 };

  it('accepts 3 requests per 2 s under 100,000 per 60 s', () => {
    assert.equal(overrideProblem({ max: 3, windowMs: 2000 }, defaults), undefined);
  });

  it('refuses a maximum above the default, pointing at rateLimitMax', () => {
    assert.equal(overrideProblem({ max: 100_001, windowMs: 120_000 }, defaults)?.field, 'rateLimitMax');
  });

  it('refuses a short window that adds up to more, pointing at rateLimitTimeWindow', () => {
    const problem = overrideProblem({ max: 10_000, windowMs: 5000 }, defaults);
    assert.equal(problem?.field, 'rateLimitTimeWindow');
    assert.match(problem?.detail ?? '', /10000 × 12 = 120000/);
  });

  it('never lets an accepted key make more requests than the default in any span of time', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 40 }),
        fc.integer({ min: 1, max: 60 }),
        fc.integer({ min: 1, max: 40 }),
        fc.integer({ min: 1, max: 60 }),
        (max, windowMs, dMax, dWindow) => {
          if (overrideProblem({ max, windowMs }, { max: dMax, windowMs: dWindow }) !== undefined) return;
          for (let span = 1; span <= 3 * Math.max(windowMs, dWindow); span++) {
            const key = mostInAnySpan(max, windowMs, span);
            const byDefault = mostInAnySpan(dMax, dWindow, span);
            assert.ok(
              key <= byDefault,
              `${max}/${windowMs} under ${dMax}/${dWindow}: ${key} > ${byDefault} in ${span}`,
            );
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('accepts every override whose maximum and window are both at least as tight', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 1000 }),
        fc.integer({ min: 1, max: 1000 }),
        fc.integer({ min: 0, max: 1000 }),
        fc.integer({ min: 0, max: 1000 }),
        (dMax, dWindow, less, more) => {
          const max = Math.max(1, dMax - less);
          assert.equal(overrideProblem({ max, windowMs: dWindow + more }, { max: dMax, windowMs: dWindow }), undefined);
        },
      ),
      { numRuns: 300 },
    );
  });
});

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { decideOutcome } from '../../src/webhooks/delivery/attempt-outcome.ts';
import type { CompletedSend } from '../../src/webhooks/delivery/send-webhook.ts';

const retry = { maxAttempts: 3, initialDelayMs: 100, backoffMultiplier: 2, maxDelayMs: 10000 };
const now = Date.parse('2025-01-01T00:00:00.000Z');
const response = (status: number, headers: Record<string, string> = {}): CompletedSend => ({
  kind: 'response',
  status,
  headers,
  body: 'b',
});
const after = (ms: number) => new Date(now + ms).toISOString();

describe('decideOutcome', () => {
  it('records 2xx as success with the response', () => {
    const outcome = decideOutcome(response(204), 1, retry, now);
    assert.deepEqual(outcome, {
      status: 'success',
      deliveredAt: after(0),
      httpStatus: 204,
      responseHeaders: {},
      responseBody: 'b',
    });
  });

  const retryable: [name: string, result: CompletedSend][] = [
    ['a network error', { kind: 'error', retryable: true, message: 'Connection failed: connect ECONNREFUSED' }],
    ['a timeout', { kind: 'error', retryable: true, message: 'Timed out after 1000 ms without a complete response' }],
    ['408', response(408)],
    ['425', response(425)],
    ['429', response(429)],
    ['500', response(500)],
    ['503', response(503)],
    ['599', response(599)],
  ];
  for (const [name, result] of retryable) {
    it(`retries after ${name} while attempts remain, and fails once they are exhausted`, () => {
      const first = decideOutcome(result, 2, retry, now);
      assert.equal(first.status, 'retry');
      assert.equal(first.status === 'retry' && first.nextRetryAt, after(200));
      const last = decideOutcome(result, 3, retry, now);
      assert.equal(last.status, 'failed');
      assert.match(last.status === 'failed' ? last.error : '', /no retries remain/);
    });
  }

  const final: [name: string, result: CompletedSend, error: RegExp][] = [
    ['400', response(400), /answered 400, which is not retried/],
    ['404', response(404), /answered 404/],
    [
      'a redirect',
      response(302, { location: 'http://elsewhere.example/' }),
      /redirect to http:\/\/elsewhere\.example\/.*not followed/,
    ],
    [
      'a refused private target',
      { kind: 'error', retryable: false, message: 'x resolves to 10.0.0.1, a private address' },
      /private/,
    ],
  ];
  for (const [name, result, error] of final) {
    it(`fails at once after ${name}`, () => {
      const outcome = decideOutcome(result, 1, retry, now);
      assert.equal(outcome.status, 'failed');
      assert.match(outcome.status === 'failed' ? outcome.error : '', error);
    });
  }

  it('lets Retry-After on 429 and 503 lengthen the delay, capped at maxDelayMs', () => {
    const on429 = decideOutcome(response(429, { 'retry-after': '3' }), 1, retry, now);
    assert.equal(on429.status === 'retry' && on429.nextRetryAt, after(3000));
    const on503 = decideOutcome(response(503, { 'retry-after': '3600' }), 1, retry, now);
    assert.equal(on503.status === 'retry' && on503.nextRetryAt, after(10000));
  });

  it('ignores Retry-After on other statuses', () => {
    const outcome = decideOutcome(response(500, { 'retry-after': '30' }), 1, retry, now);
    assert.equal(outcome.status === 'retry' && outcome.nextRetryAt, after(100));
  });
});

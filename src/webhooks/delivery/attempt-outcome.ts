// What an attempt's result means (docs/webhooks.md): 2xx succeeds; network errors, timeouts, 408, 425, 429 and
// 5xx are retried while attempts remain; anything else (3xx: redirects are not followed, other 4xx) fails.
import { parseRetryAfter } from './parse-retry-after.ts';
import type { RetryConfig } from '../subscriptions/retry-config.ts';
import { retryDelayMs } from './retry-delay.ts';
import type { CompletedSend } from './send-webhook.ts';

const RETRYABLE_STATUSES = new Set([408, 425, 429]);
/** Statuses whose Retry-After may lengthen the backoff. */
const RETRY_AFTER_STATUSES = new Set([429, 503]);

export interface AttemptResponse {
  httpStatus: number | null;
  responseHeaders: Record<string, string> | null;
  responseBody: string | null;
}

export type SuccessOutcome = { status: 'success'; deliveredAt: string } & AttemptResponse;

export type AttemptOutcome =
  | SuccessOutcome
  | ({ status: 'retry'; error: string; nextRetryAt: string } & AttemptResponse)
  | ({ status: 'failed'; error: string } & AttemptResponse);

export function decideOutcome(
  result: CompletedSend,
  attemptNumber: number,
  retry: RetryConfig,
  now: number,
): AttemptOutcome {
  const response: AttemptResponse =
    result.kind === 'response'
      ? { httpStatus: result.status, responseHeaders: result.headers, responseBody: result.body }
      : { httpStatus: null, responseHeaders: null, responseBody: null };
  if (result.kind === 'response' && result.status >= 200 && result.status < 300) {
    return { status: 'success', deliveredAt: new Date(now).toISOString(), ...response };
  }

  let error: string;
  let retryable: boolean;
  let retryAfterMs: number | undefined;
  if (result.kind === 'error') {
    error = result.message;
    retryable = result.retryable;
  } else {
    const { status, headers } = result;
    retryable = RETRYABLE_STATUSES.has(status) || (status >= 500 && status <= 599);
    error =
      status >= 300 && status < 400
        ? `The receiver answered ${status} (redirect to ${headers.location ?? 'nowhere'}); redirects are not followed`
        : `The receiver answered ${status}${retryable ? '' : ', which is not retried'}`;
    if (RETRY_AFTER_STATUSES.has(status)) retryAfterMs = parseRetryAfter(headers['retry-after'], now);
  }

  if (!retryable || attemptNumber >= retry.maxAttempts) {
    const reason = retryable ? ` (attempt ${attemptNumber} of ${retry.maxAttempts}; no retries remain)` : '';
    return { status: 'failed', error: `${error}${reason}`, ...response };
  }
  const nextRetryAt = new Date(now + retryDelayMs(retry, attemptNumber, retryAfterMs)).toISOString();
  return { status: 'retry', error, nextRetryAt, ...response };
}

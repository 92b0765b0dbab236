// How a webhook delivery attempt reads in the log. The API keeps an attempt that failed and will be
// retried as `pending` (its retry is still to come), but the attempt itself failed: it reads "failed",
// with the receiver's HTTP status, and says when the retry is due.

export interface DeliveryAttempt {
  status: string;
  httpStatus: number | null;
  error: string | null;
  nextRetryAt: string | null;
}

export interface DeliveryState {
  /** `success`, `failed` or `pending`: the badge's colour and the row's `data-status`. */
  kind: 'success' | 'failed' | 'pending';
  label: string;
  /** For a failed attempt that is retried: when. */
  retryAt: string | null;
}

export function deliveryState(attempt: DeliveryAttempt): DeliveryState {
  if (attempt.status === 'success') return { kind: 'success', label: 'success', retryAt: null };
  const answered = attempt.httpStatus !== null ? ` (HTTP ${attempt.httpStatus})` : '';
  if (attempt.status === 'failed') return { kind: 'failed', label: `failed${answered}`, retryAt: null };
  // Pending with an answer or an error: this attempt was made and failed; a later one is due.
  if (attempt.httpStatus !== null || attempt.error !== null)
    return { kind: 'failed', label: `failed${answered}`, retryAt: attempt.nextRetryAt };
  return { kind: 'pending', label: 'pending', retryAt: null };
}

// The Idempotency-Key request header: 1 to 255 visible ASCII characters, sent once.
import { ApiError } from '../errors/api-error.ts';

export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key';
export const IDEMPOTENCY_KEY_MAX_LENGTH = 255;
/** Set on an answer given again for a retry. */
export const IDEMPOTENCY_REPLAYED_HEADER = 'Idempotency-Replayed';

const VISIBLE_ASCII = /^[\x21-\x7e]{1,255}$/;

/** The key a request sends, or undefined when it sends none; 400 INVALID_IDEMPOTENCY_KEY when it is malformed. */
export function idempotencyKeyOf(headers: Record<string, string | string[] | undefined>): string | undefined {
  const value = headers['idempotency-key'];
  if (value === undefined) return undefined;
  if (Array.isArray(value)) throw invalid('Send one Idempotency-Key header, not several');
  if (!VISIBLE_ASCII.test(value)) {
    throw invalid(
      `Idempotency-Key must be 1 to ${IDEMPOTENCY_KEY_MAX_LENGTH} visible ASCII characters (no spaces), such as a UUID`,
    );
  }
  return value;
}

function invalid(detail: string): ApiError {
  return new ApiError('INVALID_IDEMPOTENCY_KEY', { detail, parameter: IDEMPOTENCY_KEY_HEADER });
}

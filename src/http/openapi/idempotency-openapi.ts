// The Idempotency-Key header of POST /v1/:resource and POST /token (docs/records.md, "Idempotent
// creates"): the request parameter, the replay mark on the answer, and the errors it adds.
import type { ErrorCode } from '../../errors/error-catalogue.ts';
import {
  IDEMPOTENCY_KEY_HEADER,
  IDEMPOTENCY_KEY_MAX_LENGTH,
  IDEMPOTENCY_REPLAYED_HEADER,
} from '../../idempotency/idempotency-key-header.ts';
import type { OpenApiObject } from './openapi-refs.ts';

/** 400 for a malformed key, 409 while the first request runs, 422 for another request under the key. */
export const IDEMPOTENCY_CODES: readonly ErrorCode[] = [
  'INVALID_IDEMPOTENCY_KEY',
  'IDEMPOTENCY_KEY_IN_USE',
  'IDEMPOTENCY_KEY_REUSED',
];

export function idempotencyKeyParameter(ttlMs: number): OpenApiObject {
  const hours = Math.round((ttlMs / 3_600_000) * 10) / 10;
  return {
    name: IDEMPOTENCY_KEY_HEADER,
    in: 'header',
    description:
      `Makes a retry safe: the first answer is kept for ${hours} h, and a retry with the same key and body gets it again ` +
      `(marked \`${IDEMPOTENCY_REPLAYED_HEADER}: true\`) without a second write. Keys are per caller; the same key with another ` +
      'body is 422 `IDEMPOTENCY_KEY_REUSED`, and a retry while the first request still runs is 409 `IDEMPOTENCY_KEY_IN_USE`.',
    schema: {
      type: 'string',
      minLength: 1,
      maxLength: IDEMPOTENCY_KEY_MAX_LENGTH,
      pattern: '^[\\x21-\\x7e]+$',
      examples: ['0b1e1c4e-3c9a-4d8e-9a57-2f0c1e0a9b11'],
    },
  };
}

/** The success response, with the header a replayed answer carries. */
export function withReplayedHeader(response: OpenApiObject): OpenApiObject {
  const replayed = {
    description: 'Present (`true`) when this is the answer kept for an earlier request with the same Idempotency-Key.',
    schema: { type: 'string', const: 'true' },
  };
  return { ...response, headers: { ...(response.headers as OpenApiObject), [IDEMPOTENCY_REPLAYED_HEADER]: replayed } };
}

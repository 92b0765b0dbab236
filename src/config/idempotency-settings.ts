// The `idempotency` settings (docs/records.md, "Idempotent creates"): how long an answer is kept for a
// retry with the same Idempotency-Key, and how long a request still running holds its key.
import type { IdempotencyConfig } from './config-types.ts';
import { deepFreeze } from '../tools/deep-freeze.ts';

/** What `idempotency` is when the config leaves it (or any of its keys) out. */
export const IDEMPOTENCY_DEFAULTS: Readonly<IdempotencyConfig> = deepFreeze({
  ttlMs: 24 * 60 * 60 * 1000,
  leaseMs: 60_000,
});

export const IDEMPOTENCY_SCHEMA = deepFreeze({
  description: 'Idempotency-Key on POST /v1/:resource and POST /token: answers kept for retries.',
  type: 'object',
  default: {},
  additionalProperties: false,
  properties: {
    ttlMs: {
      description:
        'How long a first answer is kept for a retry with the same key (milliseconds); older keys are pruned by retention.',
      type: 'integer',
      minimum: 1000,
      default: IDEMPOTENCY_DEFAULTS.ttlMs,
    },
    leaseMs: {
      description:
        'For POST /token: how long a request still running holds its key (retries get 409); past it, the request is taken to have failed and a retry runs again. Creates need no lease: their key is claimed in their own transaction.',
      type: 'integer',
      minimum: 1000,
      default: IDEMPOTENCY_DEFAULTS.leaseMs,
    },
  },
});

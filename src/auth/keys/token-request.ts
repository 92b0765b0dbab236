// The body of POST /token (CONTRACT 5), validated. Rate-limit fields may only tighten the global
// default: a key can ask for fewer requests or a longer window, never more or shorter.
import type { SvcConfig } from '../../config/config-types.ts';
import type { ResourceRegistry } from '../../resources/resource-registry.ts';
import type { KeyPermissions } from '../principal.ts';
import { BodyReader, type JsonObject } from '../validation/body-reader.ts';
import { validateKeyPermissions } from './validate-key-permissions.ts';

export interface TokenRequest {
  email: string;
  password: string;
  permissions: KeyPermissions | null;
  name: string | null;
  metadata: JsonObject | null;
  /** Seconds from now; null = never expires. */
  expiresIn: number | null;
  rateLimitMax: number | null;
  rateLimitTimeWindow: number | null;
  refillInterval: number | null;
  refillAmount: number | null;
  remaining: number | null;
}

const FIELDS = [
  'email', 'password', 'permissions', 'name', 'metadata', 'expiresIn',
  'rateLimitMax', 'rateLimitTimeWindow', 'refillInterval', 'refillAmount', 'remaining',
] as const;

/** 100 years: far enough for "long-lived", near enough to stay a valid date everywhere. */
const MAX_EXPIRES_IN_SECONDS = 100 * 365 * 24 * 3600;
const MAX_INTERVAL_MS = 365 * 24 * 3600 * 1000;
const MAX_COUNT = 1_000_000_000;

export function parseTokenRequest(body: unknown, config: SvcConfig, registry: Pick<ResourceRegistry, 'find'>): TokenRequest {
  const reader = BodyReader.of(body);
  reader.rejectUnknown(FIELDS);
  const email = reader.required('email') ? reader.string('email', { minLength: 1, maxLength: 320, trim: true }) : undefined;
  const password = reader.required('password') ? reader.string('password', { minLength: 1, maxLength: 1024 }) : undefined;
  const name = reader.string('name', { nullable: true, minLength: 1, maxLength: 255 });
  const metadata = reader.object('metadata', { nullable: true, maxBytes: 8192 });
  const expiresIn = reader.integer('expiresIn', { nullable: true, minimum: 1, maximum: MAX_EXPIRES_IN_SECONDS });

  const defaults = config.apiKeys.rateLimit;
  const rateLimitMax = reader.integer('rateLimitMax', { nullable: true, minimum: 1, maximum: MAX_COUNT });
  if (defaults.enabled && typeof rateLimitMax === 'number' && rateLimitMax > defaults.max) {
    reader.problem('rateLimitMax', `rateLimitMax may only tighten the default: at most ${defaults.max}`);
  }
  const rateLimitTimeWindow = reader.integer('rateLimitTimeWindow', { nullable: true, minimum: 1, maximum: MAX_INTERVAL_MS });
  if (defaults.enabled && typeof rateLimitTimeWindow === 'number' && rateLimitTimeWindow < defaults.timeWindow) {
    reader.problem(
      'rateLimitTimeWindow',
      `rateLimitTimeWindow may only tighten the default: at least ${defaults.timeWindow} ms (a shorter window allows more requests)`,
    );
  }
  const refillInterval = reader.integer('refillInterval', { nullable: true, minimum: 1, maximum: MAX_INTERVAL_MS });
  const refillAmount = reader.integer('refillAmount', { nullable: true, minimum: 1, maximum: MAX_COUNT });
  if ((refillInterval ?? null) === null && typeof refillAmount === 'number') {
    reader.problem('refillInterval', 'refillInterval is required with refillAmount');
  }
  if ((refillAmount ?? null) === null && typeof refillInterval === 'number') {
    reader.problem('refillAmount', 'refillAmount is required with refillInterval');
  }
  const remaining = reader.integer('remaining', { nullable: true, minimum: 1, maximum: MAX_COUNT });
  reader.throwIfInvalid();

  // Checked after the plain fields: a body with both kinds of problems reports the data ones first.
  const permissionsValue = reader.raw('permissions');
  const permissions = permissionsValue === undefined || permissionsValue === null ? null : validateKeyPermissions(permissionsValue, registry);

  return {
    // throwIfInvalid() above guarantees both were present and strings.
    email: email!,
    password: password!,
    permissions,
    name: name ?? null,
    metadata: metadata ?? null,
    expiresIn: expiresIn ?? null,
    rateLimitMax: rateLimitMax ?? null,
    rateLimitTimeWindow: rateLimitTimeWindow ?? null,
    refillInterval: refillInterval ?? null,
    refillAmount: refillAmount ?? null,
    // A refill schedule without a starting quota starts full.
    remaining: remaining ?? (typeof refillAmount === 'number' ? refillAmount : null),
  };
}

// The body of POST /token (docs/authentication.md), validated. Rate-limit fields may only tighten the global
// default: the key's own limit must never allow more requests than the default in any interval.
import type { SvcConfig } from '../../config/config-types.ts';
import type { ResourceRegistry } from '../../resources/resource-registry.ts';
import type { KeyPermissions } from '../../model/principal.ts';
import { overrideProblem } from '../rate-limit/override-within-default.ts';
import { BodyReader, type JsonObject } from '../validation/body-reader.ts';
import { validateKeyPermissions } from './validate-key-permissions.ts';

export interface TokenRequest {
  /** Both null: the key is for the signed-in session the request carries instead. */
  email: string | null;
  password: string | null;
  /** The current TOTP code, for a user with two-factor on. */
  otp: string | null;
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
  /** The web console's own key (console-key.ts): idle-limited, hidden from key lists. */
  console: boolean;
}

const FIELDS = [
  'email',
  'password',
  'otp',
  'permissions',
  'name',
  'metadata',
  'expiresIn',
  'rateLimitMax',
  'rateLimitTimeWindow',
  'refillInterval',
  'refillAmount',
  'remaining',
  'console',
] as const;

/** 100 years: far enough for "long-lived", near enough to stay a valid date everywhere. */
export const MAX_EXPIRES_IN_SECONDS = 100 * 365 * 24 * 3600;
export const MAX_INTERVAL_MS = 365 * 24 * 3600 * 1000;
export const MAX_COUNT = 1_000_000_000;
/** Bounds of the text fields, shared with the OpenAPI description of the body. */
export const TOKEN_FIELD_LIMITS = {
  emailMaxLength: 320,
  passwordMaxLength: 1024,
  otpMaxLength: 16,
  nameMaxLength: 255,
  metadataMaxBytes: 8192,
} as const;

export function parseTokenRequest(
  body: unknown,
  config: SvcConfig,
  registry: Pick<ResourceRegistry, 'find'>,
): TokenRequest {
  const reader = BodyReader.of(body);
  reader.rejectUnknown(FIELDS);
  // Neither: the caller's session stands in for them. One without the other is a mistake.
  const withCredentials = reader.has('email') || reader.has('password');
  const email =
    !withCredentials || reader.required('email')
      ? reader.string('email', { minLength: 1, maxLength: TOKEN_FIELD_LIMITS.emailMaxLength, trim: true })
      : undefined;
  const password =
    !withCredentials || reader.required('password')
      ? reader.string('password', { minLength: 1, maxLength: TOKEN_FIELD_LIMITS.passwordMaxLength })
      : undefined;
  const otp = reader.string('otp', {
    nullable: true,
    minLength: 1,
    maxLength: TOKEN_FIELD_LIMITS.otpMaxLength,
    trim: true,
  });
  const name = reader.string('name', { nullable: true, minLength: 1, maxLength: TOKEN_FIELD_LIMITS.nameMaxLength });
  const metadata = reader.object('metadata', { nullable: true, maxBytes: TOKEN_FIELD_LIMITS.metadataMaxBytes });
  const expiresIn = reader.integer('expiresIn', { nullable: true, minimum: 1, maximum: MAX_EXPIRES_IN_SECONDS });

  const defaults = config.apiKeys.rateLimit;
  const rateLimitMax = reader.integer('rateLimitMax', { nullable: true, minimum: 1, maximum: MAX_COUNT });
  const rateLimitTimeWindow = reader.integer('rateLimitTimeWindow', {
    nullable: true,
    minimum: 1,
    maximum: MAX_INTERVAL_MS,
  });
  const givesLimit = typeof rateLimitMax === 'number' || typeof rateLimitTimeWindow === 'number';
  // Only when each field was valid on its own (or absent: then the default's value is in force for it).
  const bothReadable =
    (rateLimitMax !== undefined || !reader.has('rateLimitMax')) &&
    (rateLimitTimeWindow !== undefined || !reader.has('rateLimitTimeWindow'));
  if (defaults.enabled && givesLimit && bothReadable) {
    const problem = overrideProblem(
      { max: rateLimitMax ?? defaults.max, windowMs: rateLimitTimeWindow ?? defaults.timeWindow },
      { max: defaults.max, windowMs: defaults.timeWindow },
    );
    if (problem) reader.problem(problem.field, problem.detail);
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
  const forConsole = reader.boolean('console') === true;
  if (forConsole && typeof expiresIn === 'number')
    reader.problem(
      'expiresIn',
      'A console key ends when unused for a while, and after a fixed maximum: leave expiresIn out',
    );
  reader.throwIfInvalid();

  // Checked after the plain fields: a body with both kinds of problems reports the data ones first.
  const permissionsValue = reader.raw('permissions');
  const permissions =
    permissionsValue === undefined || permissionsValue === null
      ? null
      : validateKeyPermissions(permissionsValue, registry);

  return {
    // throwIfInvalid() above guarantees both are strings, or both absent.
    email: email ?? null,
    password: password ?? null,
    otp: otp ?? null,
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
    console: forConsole,
  };
}

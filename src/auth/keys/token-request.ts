// The body of POST /token (docs/authentication.md) once its shape is checked (http/bodies/token-body.ts),
// and what only the service can check of it: rate-limit fields may only tighten the global default (the
// key's own limit must never allow more requests than the default in any interval), a refill schedule
// needs both its fields, and every scoped resource and field must exist.
import type { SvcConfig } from '../../config/config-types.ts';
import type { ErrorIssue } from '../../errors/api-error.ts';
import type { ResourceRegistry } from '../../resources/resource-registry.ts';
import type { KeyPermissions } from '../../model/principal.ts';
import { overrideProblem } from '../rate-limit/override-within-default.ts';
import { readKeyPermissions } from './read-key-permissions.ts';

type JsonObject = Record<string, unknown>;

/** The body as its schema accepts it: null is the same as leaving a field out (except for email and password). */
export interface TokenRequestBody {
  email?: string;
  password?: string;
  otp?: string | null;
  permissions?: JsonObject | null;
  name?: string | null;
  metadata?: JsonObject | null;
  expiresIn?: number | null;
  rateLimitMax?: number | null;
  rateLimitTimeWindow?: number | null;
  refillInterval?: number | null;
  refillAmount?: number | null;
  remaining?: number | null;
  /** Ask for the web console's own key (console-key.ts). */
  console?: boolean;
}

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

/** 100 years: far enough for "long-lived", near enough to stay a valid date everywhere. */
export const MAX_EXPIRES_IN_SECONDS = 100 * 365 * 24 * 3600;
export const MAX_INTERVAL_MS = 365 * 24 * 3600 * 1000;
export const MAX_COUNT = 1_000_000_000;
/** Bounds of the text fields, shared with the body's schema. */
export const TOKEN_FIELD_LIMITS = {
  emailMaxLength: 320,
  passwordMaxLength: 1024,
  otpMaxLength: 16,
  nameMaxLength: 255,
  metadataMaxBytes: 8192,
} as const;

/** Problems of the members the schema accepted that need the config or the resources to see. */
export function tokenRequestProblems(
  body: Partial<TokenRequestBody>,
  config: SvcConfig,
  registry: Pick<ResourceRegistry, 'find'>,
): ErrorIssue[] {
  const issues: ErrorIssue[] = [];
  if (body.permissions) issues.push(...readKeyPermissions(body.permissions, registry).issues);
  // Trimmed before use, so blank is empty.
  for (const member of ['email', 'otp'] as const) {
    const value = body[member];
    if (typeof value === 'string' && value.trim() === '')
      issues.push({ detail: `'${member}' must not be blank`, field: member });
  }
  if (body.metadata && Buffer.byteLength(JSON.stringify(body.metadata)) > TOKEN_FIELD_LIMITS.metadataMaxBytes) {
    issues.push({
      detail: `'metadata' must be at most ${TOKEN_FIELD_LIMITS.metadataMaxBytes} bytes of JSON`,
      field: 'metadata',
    });
  }
  const defaults = config.apiKeys.rateLimit;
  const { rateLimitMax, rateLimitTimeWindow } = body;
  const givesLimit = typeof rateLimitMax === 'number' || typeof rateLimitTimeWindow === 'number';
  // Absent (or refused by the schema): the default's value is in force for it.
  if (defaults.enabled && givesLimit) {
    const problem = overrideProblem(
      { max: rateLimitMax ?? defaults.max, windowMs: rateLimitTimeWindow ?? defaults.timeWindow },
      { max: defaults.max, windowMs: defaults.timeWindow },
    );
    if (problem) issues.push({ detail: problem.detail, field: problem.field });
  }
  const { refillInterval, refillAmount } = body;
  if ((refillInterval ?? null) === null && typeof refillAmount === 'number')
    issues.push({ detail: 'refillInterval is required with refillAmount', field: 'refillInterval' });
  if ((refillAmount ?? null) === null && typeof refillInterval === 'number')
    issues.push({ detail: 'refillAmount is required with refillInterval', field: 'refillAmount' });
  if (body.console === true && typeof body.expiresIn === 'number')
    issues.push({
      detail: 'A console key ends when unused for a while, and after a fixed maximum: leave expiresIn out',
      field: 'expiresIn',
    });
  return issues;
}

/** The request a checked body stands for (tokenRequestProblems found nothing wrong with it). */
export function tokenRequestOf(body: TokenRequestBody, registry: Pick<ResourceRegistry, 'find'>): TokenRequest {
  const permissions =
    body.permissions === undefined || body.permissions === null
      ? null
      : readKeyPermissions(body.permissions, registry).permissions;
  const refillAmount = body.refillAmount ?? null;
  return {
    // The schema takes email and password together, or neither.
    email: body.email?.trim() ?? null,
    password: body.password ?? null,
    otp: body.otp?.trim() ?? null,
    permissions,
    name: body.name ?? null,
    metadata: body.metadata ?? null,
    expiresIn: body.expiresIn ?? null,
    rateLimitMax: body.rateLimitMax ?? null,
    rateLimitTimeWindow: body.rateLimitTimeWindow ?? null,
    refillInterval: body.refillInterval ?? null,
    refillAmount,
    // A refill schedule without a starting quota starts full.
    remaining: body.remaining ?? refillAmount,
    console: body.console === true,
  };
}

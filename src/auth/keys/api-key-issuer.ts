// POST /token: checks the user's credentials and issues a key (spec 4, 5; docs/authentication.md). The secret
// is returned here once; only its SHA-256 is stored.
import { randomUUID } from 'node:crypto';
import type { SvcConfig } from '../../config/config-types.ts';
import { ApiError } from '../../errors/api-error.ts';
import type { Identity } from '../identity/identity.ts';
import { verifyCredentials } from '../identity/verify-credentials.ts';
import { hasTwoFactor, verifyTotp } from '../identity/verify-totp.ts';
import type { AuthContext } from 'better-auth';
import type { KeyPermissions } from '../../model/principal.ts';
import type { LoginOutcome } from '../rate-limit/login-throttle.ts';
import { hashToken } from '../token-hash.ts';
import { generateApiKey } from './api-key-format.ts';
import type { ApiKeyRepository } from './api-key-repository.ts';
import type { TokenRequest } from './token-request.ts';
import { CONSOLE_KEY_IDLE_MS, CONSOLE_KEY_MAX_AGE_SECONDS, CONSOLE_KEY_NAME } from './console-key.ts';

/** The /token answer (docs/authentication.md): flat JSON. */
export interface IssuedApiKey {
  key: string;
  id: string;
  name: string | null;
  start: string;
  prefix: string;
  expiresAt: string | null;
  permissions: KeyPermissions | null;
  /** A console key: unused for `idleTimeoutSeconds` it stops working (console-key.ts). */
  console?: { idleTimeoutSeconds: number };
}

/** How a failed issue() counts for the login throttle: only a wrong email or password is a failure. */
export function issueOutcome(error: unknown): LoginOutcome {
  if (!(error instanceof ApiError)) return 'unchecked';
  // A wrong two-factor code counts as a failure, so codes cannot be guessed faster than passwords. A
  // missing one counts as nothing: were it "verified", asking without a code would reset the count.
  if (error.code === 'INVALID_CREDENTIALS' || error.code === 'INVALID_TWO_FACTOR_CODE') return 'failed';
  if (error.code === 'TWO_FACTOR_REQUIRED') return 'unchecked';
  // Thrown only once the password matched.
  return error.code === 'EMAIL_NOT_VERIFIED' ? 'verified' : 'unchecked';
}

/** A user with two-factor on gives the current code from their authenticator app as `otp`. */
async function checkSecondFactor(context: AuthContext, userId: string, otp: string | null): Promise<void> {
  if (otp === null) {
    throw new ApiError('TWO_FACTOR_REQUIRED', [
      { field: 'otp', detail: 'This account has two-factor authentication on: send the current code as otp' },
    ]);
  }
  if (!(await verifyTotp(context, userId, otp))) {
    throw new ApiError('INVALID_TWO_FACTOR_CODE', [{ field: 'otp', detail: 'The two-factor code is not correct' }]);
  }
}

export class ApiKeyIssuer {
  readonly #identity: Identity;
  readonly #keys: ApiKeyRepository;
  readonly #requireVerifiedEmail: boolean;

  constructor(identity: Identity, keys: ApiKeyRepository, config: SvcConfig) {
    this.#identity = identity;
    this.#keys = keys;
    this.#requireVerifiedEmail = config.auth.requireEmailVerification;
  }

  /** For an email and password (both present: the route checked). */
  async issue(request: TokenRequest, now = new Date()): Promise<IssuedApiKey> {
    const context = await this.#identity.context;
    const user = await verifyCredentials(context, request.email ?? '', request.password ?? '');
    // Only after the password matched: otherwise the answer would reveal which emails are registered.
    this.#requireVerified(user);
    if (hasTwoFactor(user)) await checkSecondFactor(context, user.id, request.otp);
    return this.issueFor({ id: user.id, emailVerified: user.emailVerified }, request, now);
  }

  /**
   * For a user already authenticated (a signed-in session). No code is asked for: better-auth grants a
   * password sign-in of a user with two-factor on its session only once the second factor was given.
   */
  async issueFor(
    user: { id: string; emailVerified: boolean },
    request: TokenRequest,
    now = new Date(),
  ): Promise<IssuedApiKey> {
    this.#requireVerified(user);
    const { key, prefix, start } = generateApiKey();
    const createdAt = now.toISOString();
    const expiresIn = request.console ? CONSOLE_KEY_MAX_AGE_SECONDS : request.expiresIn;
    const record = await this.#keys.insert({
      id: randomUUID(),
      name: request.name ?? (request.console ? CONSOLE_KEY_NAME : null),
      prefix,
      start,
      userId: user.id,
      enabled: true,
      permissions: request.permissions,
      metadata: request.metadata,
      expiresAt: expiresIn === null ? null : new Date(now.getTime() + expiresIn * 1000).toISOString(),
      rateLimitEnabled: true,
      rateLimitMax: request.rateLimitMax,
      rateLimitTimeWindow: request.rateLimitTimeWindow,
      refillInterval: request.refillInterval,
      refillAmount: request.refillAmount,
      remaining: request.remaining,
      lastRefillAt: request.remaining === null ? null : createdAt,
      keyHash: hashToken(key),
      createdAt,
      console: request.console,
    });
    return {
      key,
      id: record.id,
      name: record.name,
      start: record.start,
      prefix: record.prefix,
      expiresAt: record.expiresAt,
      permissions: record.permissions,
      ...(record.console ? { console: { idleTimeoutSeconds: CONSOLE_KEY_IDLE_MS / 1000 } } : {}),
    };
  }

  #requireVerified(user: { emailVerified: boolean }): void {
    if (this.#requireVerifiedEmail && !user.emailVerified) {
      throw new ApiError('EMAIL_NOT_VERIFIED', 'Verify your email address before requesting an API key');
    }
  }
}

// Limits failed credential checks (POST /token, sign-in) per account and per client address, on the
// rate limiter's atomic counters (shared through Redis when configured). An attempt is counted before
// its password is checked, so concurrent guesses cannot slip past the limit together; once the check
// is done, an attempt that was not a failure gives its count back.
import { createHash } from 'node:crypto';
import { LOGIN_THROTTLE_DEFAULTS } from '../../config/config-schema.ts';
import type { LoginThrottleConfig } from '../../config/config-types.ts';
import { ApiError } from '../../errors/api-error.ts';
import type { RateLimitDecision, RateLimiter } from './rate-limiter.ts';

/**
 * `verified`: the password was right (whatever came after, e.g. an unverified email);
 * `failed`: wrong email or password; `unchecked`: refused before any password was compared.
 */
export type LoginOutcome = 'verified' | 'failed' | 'unchecked';

/** `login`: password checks; the others: the links an account can be sent, and a reset token's use. */
export type ThrottleKind = 'login' | 'reset' | 'change-email' | 'delete' | 'sign-in';

export interface LoginAttempt {
  finish(outcome: LoginOutcome): Promise<void>;
}

const UNTHROTTLED: LoginAttempt = { finish: () => Promise.resolve() };

/** The email as accounts are looked up: trimmed, lower case. */
export function normaliseEmail(email: string): string {
  return email.trim().toLowerCase();
}

export class LoginThrottle {
  readonly #limiter: RateLimiter;
  readonly #settings: LoginThrottleConfig;

  constructor(limiter: RateLimiter, settings: LoginThrottleConfig = LOGIN_THROTTLE_DEFAULTS) {
    this.#limiter = limiter;
    this.#settings = settings;
  }

  /**
   * Counts an attempt for `email` from `address`, or throws 429 RATE_LIMITED when either is over its
   * limit. The answer is the same whether the account exists and whatever the password: nothing is
   * looked up here.
   */
  admit(email: string, address: string): Promise<LoginAttempt> {
    return this.#admit(email, address, 'login');
  }

  /**
   * The same limits for account emails and their links (a reset, a deletion, an email change): counted
   * in their own buckets, so asking for links cannot lock a user out of signing in. `account` is an
   * email or a user id; without one (a reset token's use) only the address is counted.
   */
  admitLink(account: string | undefined, address: string, kind: Exclude<ThrottleKind, 'login'>): Promise<LoginAttempt> {
    return this.#admit(account, address, kind);
  }

  async #admit(email: string | undefined, address: string, kind: ThrottleKind): Promise<LoginAttempt> {
    const { enabled, maxFailuresPerAccount, maxFailuresPerAddress, windowMs } = this.#settings;
    if (!enabled) return UNTHROTTLED;
    // Hashed: Redis keys stay short whatever was typed, and hold no email address.
    const account =
      email === undefined
        ? undefined
        : `${kind}:account:${createHash('sha256').update(normaliseEmail(email)).digest('base64url')}`;
    const client = `${kind}:address:${address}`;
    const byAddress = await this.#limiter.consume(client, maxFailuresPerAddress, windowMs);
    if (!byAddress.allowed) throw throttled(byAddress, kind);
    if (account === undefined) {
      return {
        finish: async (outcome) => {
          if (outcome !== 'failed') await this.#limiter.release(client, windowMs);
        },
      };
    }
    const byAccount = await this.#limiter.consume(account, maxFailuresPerAccount, windowMs);
    if (!byAccount.allowed) {
      // No password was tried: this refusal is no failure of the address.
      await this.#limiter.release(client, windowMs);
      throw throttled(byAccount, kind);
    }
    return {
      finish: async (outcome) => {
        if (outcome === 'failed') return;
        // The right password clears the account's failures; the address keeps the others it made.
        if (outcome === 'verified') await this.#limiter.reset(account, windowMs);
        else await this.#limiter.release(account, windowMs);
        await this.#limiter.release(client, windowMs);
      },
    };
  }

  /** Runs one credential check under the throttle; `outcomeOf` reads its result or error. */
  async guard<T>(
    email: string,
    address: string,
    check: () => Promise<T>,
    outcomeOf: (error: unknown) => LoginOutcome,
  ): Promise<T> {
    const attempt = await this.admit(email, address);
    let result: T;
    try {
      result = await check();
    } catch (error) {
      await attempt.finish(outcomeOf(error));
      throw error;
    }
    await attempt.finish('verified');
    return result;
  }
}

function throttled(decision: RateLimitDecision, kind: ThrottleKind): ApiError {
  const seconds = Math.max(1, Math.ceil(decision.resetMs / 1000));
  // One message for the account and the address limit: which one tripped is nobody's business.
  const detail =
    kind === 'login'
      ? 'Too many failed sign-in attempts; try again later'
      : 'Too many account emails or reset attempts; try again later';
  return new ApiError('RATE_LIMITED', detail, { headers: { 'Retry-After': String(seconds) } });
}

// Which window limit applies to a key: its own rateLimitMax/rateLimitTimeWindow, else the global
// default (config.apiKeys.rateLimit). `rateLimitEnabled: false` turns limiting off for the key.
import type { SvcConfig } from '../../config/config-types.ts';
import type { RateLimitDecision } from './rate-limiter.ts';

/** A key's window as its RateLimit-* headers describe it. */
export interface RateLimitState {
  limit: number;
  remaining: number;
  /** Seconds until the window resets. */
  resetSeconds: number;
}

export interface WindowLimit {
  max: number;
  windowMs: number;
}

export interface KeyRateLimitSettings {
  rateLimitEnabled: boolean;
  rateLimitMax: number | null;
  rateLimitTimeWindow: number | null;
}

export function windowLimitFor(
  key: KeyRateLimitSettings,
  defaults: SvcConfig['apiKeys']['rateLimit'],
): WindowLimit | null {
  if (!key.rateLimitEnabled) return null;
  // A key with its own maximum is limited even when the global default is switched off.
  if (!defaults.enabled && key.rateLimitMax === null) return null;
  return { max: key.rateLimitMax ?? defaults.max, windowMs: key.rateLimitTimeWindow ?? defaults.timeWindow };
}

export function toRateLimitState(decision: RateLimitDecision): RateLimitState {
  return { limit: decision.limit, remaining: decision.remaining, resetSeconds: Math.ceil(decision.resetMs / 1000) };
}

/** The RateLimit-* headers (IETF draft) that describe a window, for error responses too. */
export function rateLimitHeaders(state: RateLimitState): Record<string, string> {
  return {
    'RateLimit-Limit': String(state.limit),
    'RateLimit-Remaining': String(state.remaining),
    'RateLimit-Reset': String(state.resetSeconds),
  };
}

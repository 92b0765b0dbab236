// Email sign-ups under a per-client-address limit (`auth.signUpThrottle`): every attempt counts, a new
// account or not, so one address can neither mass-create accounts nor try address after address to
// learn which are registered. The count lives on the rate limiter (shared through Redis when set).
import type { SignUpThrottleConfig } from '../../config/config-types.ts';
import { ApiError } from '../../errors/api-error.ts';
import type { RateLimiter } from '../rate-limit/rate-limiter.ts';
import { CLIENT_IP_HEADER } from './build-identity-options.ts';
import type { IdentityHandler } from './throttled-sign-in.ts';

export function throttleSignUp(
  handler: IdentityHandler,
  limiter: RateLimiter,
  settings: SignUpThrottleConfig,
  basePath: string,
): IdentityHandler {
  if (!settings.enabled) return handler;
  const signUpPath = `${basePath.replace(/\/+$/, '')}/sign-up/email`;
  return async (request) => {
    if (request.method !== 'POST' || new URL(request.url).pathname.replace(/\/+$/, '') !== signUpPath)
      return handler(request);
    const address = request.headers.get(CLIENT_IP_HEADER) ?? '';
    const decision = await limiter.consume(`signup:address:${address}`, settings.maxPerAddress, settings.windowMs);
    if (!decision.allowed) {
      const seconds = Math.max(1, Math.ceil(decision.resetMs / 1000));
      throw new ApiError('RATE_LIMITED', 'Too many sign-ups from this address; try again later', {
        headers: { 'Retry-After': String(seconds) },
      });
    }
    return handler(request);
  };
}

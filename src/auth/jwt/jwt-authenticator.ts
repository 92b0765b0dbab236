// Resolves a request that carries an external identity provider's JWT (auth.jwt): the signature is
// checked against the provider's JWKS with asymmetric algorithms only, `exp`, `nbf`, `iss` and `aud`
// are enforced, and the role claim must name a defined role. The caller then acts with that role's
// permissions as a key holder does, under a per-subject window with the keys' default limit.
import { errors as joseErrors, jwtVerify, type JWTPayload, type JWTVerifyGetKey } from 'jose';
import type { JwtConfig, SvcConfig } from '../../config/config-types.ts';
import { ApiError } from '../../errors/api-error.ts';
import type { AuthenticateInput, AuthenticatedRequest } from '../auth-component.ts';
import type { JwtPrincipal } from '../../model/principal.ts';
import type { RateLimitDecision, RateLimiter } from '../rate-limit/rate-limiter.ts';
import { rateLimitHeaders, toRateLimitState, type RateLimitState } from '../rate-limit/key-rate-limit.ts';
import { resolveRole } from '../resolve-role.ts';
import { boundedJwks } from './bounded-jwks.ts';

/**
 * Public-key algorithms only: `none` and the HMAC family are refused, so a key set's public key can
 * never be used as a shared secret to sign a forged token.
 */
export const JWT_ALGORITHMS = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
  'Ed25519',
];

/** The longest subject and role names accepted from a token. */
const MAX_CLAIM_LENGTH = 255;
const MAX_ALLOWED_ROLES = 100;

/** Rate-limit counters of subjects live apart from those of keys. */
const SUBJECT_LIMIT_PREFIX = 'jwt:';

export interface JwtAuthenticatorParts {
  jwt: JwtConfig;
  rateLimit: SvcConfig['apiKeys']['rateLimit'];
  limiter: RateLimiter;
  definedRoles: () => ReadonlySet<string>;
  /** The key set; default: fetched from `jwt.jwksUrl`. */
  keys?: JWTVerifyGetKey;
}

function tokenRefused(detail: string): ApiError {
  return new ApiError('INVALID_TOKEN', detail, { headers: { 'WWW-Authenticate': 'Bearer error="invalid_token"' } });
}

/** What went wrong, said plainly; never the library's message, which may echo the token. */
function refusal(error: unknown): ApiError {
  if (error instanceof joseErrors.JWTExpired) return tokenRefused('The token has expired');
  if (error instanceof joseErrors.JWTClaimValidationFailed) {
    if (error.claim === 'nbf') return tokenRefused('The token is not valid yet');
    if (error.claim === 'iss') return tokenRefused('The token was not issued by the configured issuer');
    if (error.claim === 'aud') return tokenRefused('The token is not meant for this service (audience)');
    return tokenRefused(`The token's '${error.claim}' claim is missing or not valid`);
  }
  if (error instanceof joseErrors.JOSEAlgNotAllowed)
    return tokenRefused('The token is signed with an algorithm that is not accepted');
  if (error instanceof joseErrors.JWKSNoMatchingKey)
    return tokenRefused("The token's key is not in the identity provider's key set");
  if (error instanceof joseErrors.JWSSignatureVerificationFailed)
    return tokenRefused("The token's signature is not valid");
  if (error instanceof joseErrors.JWKSTimeout || error instanceof joseErrors.JWKSInvalid) {
    return new ApiError('SERVICE_UNAVAILABLE', "The identity provider's key set could not be fetched", {
      headers: { 'Retry-After': '5' },
    });
  }
  if (error instanceof joseErrors.JOSEError) return tokenRefused('The token is not a valid signed JWT');
  // A network failure or an oversized key set: the provider is the problem, not the caller.
  return new ApiError('SERVICE_UNAVAILABLE', "The identity provider's key set could not be fetched", {
    headers: { 'Retry-After': '5' },
  });
}

function claimOf(payload: JWTPayload, name: string): unknown {
  return Object.hasOwn(payload, name) ? payload[name] : undefined;
}

function stringClaim(value: unknown): string | undefined {
  if (typeof value === 'number' && Number.isSafeInteger(value)) return String(value);
  return typeof value === 'string' && value.length > 0 && value.length <= MAX_CLAIM_LENGTH ? value : undefined;
}

function rolesClaim(value: unknown): string[] {
  if (typeof value === 'string') return stringClaim(value) ? [value] : [];
  if (!Array.isArray(value)) return [];
  return value
    .slice(0, MAX_ALLOWED_ROLES)
    .filter((role): role is string => stringClaim(role) !== undefined && typeof role === 'string');
}

export class JwtAuthenticator {
  readonly #parts: JwtAuthenticatorParts;
  readonly #keys: JWTVerifyGetKey;

  constructor(parts: JwtAuthenticatorParts) {
    this.#parts = parts;
    this.#keys = parts.keys ?? boundedJwks(parts.jwt.jwksUrl);
  }

  async authenticate(token: string, input: AuthenticateInput): Promise<AuthenticatedRequest> {
    const { jwt } = this.#parts;
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, this.#keys, {
        algorithms: JWT_ALGORITHMS,
        issuer: jwt.issuer,
        audience: jwt.audience,
        // A token without an expiry would be good forever: refused.
        requiredClaims: ['exp'],
      }));
    } catch (error) {
      throw refusal(error);
    }
    const userId = stringClaim(claimOf(payload, jwt.userIdClaim));
    if (userId === undefined) throw tokenRefused(`The token has no usable '${jwt.userIdClaim}' claim`);
    const primaryRole = stringClaim(claimOf(payload, jwt.roleClaim));
    if (primaryRole === undefined || !this.#parts.definedRoles().has(primaryRole)) {
      throw new ApiError('FORBIDDEN', `The token's '${jwt.roleClaim}' claim does not name a role this service defines`);
    }
    const allowedRoles = jwt.allowedRolesClaim === undefined ? [] : rolesClaim(claimOf(payload, jwt.allowedRolesClaim));
    const role = resolveRole({ primaryRole, allowedRoles }, input.role, this.#parts.definedRoles);
    const principal: JwtPrincipal = {
      kind: 'jwt',
      subject: userId,
      userId,
      role,
      keyPermissions: null,
      // requiredClaims made sure it is there and jwtVerify that it is a number in the future.
      expiresAt: new Date((payload.exp as number) * 1000).toISOString(),
    };
    const rateLimit = await this.#window(userId);
    return rateLimit ? { principal, rateLimit } : { principal };
  }

  /** The subject's window under the keys' default limit; 429 RATE_LIMITED when it is full. */
  async #window(subject: string): Promise<RateLimitState | undefined> {
    const { rateLimit, limiter } = this.#parts;
    if (!rateLimit.enabled) return undefined;
    const decision: RateLimitDecision = await limiter.consume(
      SUBJECT_LIMIT_PREFIX + subject,
      rateLimit.max,
      rateLimit.timeWindow,
    );
    const state = toRateLimitState(decision);
    if (!decision.allowed) {
      throw new ApiError(
        'RATE_LIMITED',
        `Rate limit of ${rateLimit.max} requests per ${rateLimit.timeWindow} ms exceeded`,
        {
          headers: { ...rateLimitHeaders(state), 'Retry-After': String(Math.max(1, state.resetSeconds)) },
        },
      );
    }
    return state;
  }
}

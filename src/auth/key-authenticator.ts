// Resolves the caller of a request from its bearer token: the admin token, or an API key checked
// against the in-memory key cache, its window rate limit and its quota. The hot path reads nothing
// from the database (cache hit) and writes nothing (usage is counted in memory and flushed).
import type { SvcConfig } from '../config/config-types.ts';
import { ApiError } from '../errors/api-error.ts';
import type { AdminTokenVerifier } from './admin/admin-token-verifier.ts';
import type { AuthenticateInput, AuthenticatedRequest, RateLimitState } from './auth-component.ts';
import { parseBearerToken } from './bearer-token.ts';
import { looksLikeApiKey } from './keys/api-key-format.ts';
import type { ApiKeyRecord } from './keys/api-key-record.ts';
import type { CachedKey, CachedKeyOwner, KeyCache } from './keys/key-cache.ts';
import type { UsageQuota } from './keys/usage-quota.ts';
import type { UsageRecorder } from './keys/usage-recorder.ts';
import type { AdminPrincipal, KeyPrincipal } from './principal.ts';
import type { RateLimiter } from './rate-limit/rate-limiter.ts';
import { rateLimitHeaders, toRateLimitState, windowLimitFor } from './rate-limit/key-rate-limit.ts';
import { resolveRole } from './resolve-role.ts';
import { hashToken } from './token-hash.ts';

export interface KeyAuthenticatorParts {
  config: SvcConfig;
  adminTokens: AdminTokenVerifier;
  cache: KeyCache<ApiKeyRecord>;
  usage: UsageRecorder;
  limiter: RateLimiter;
  quota: UsageQuota;
}

type UsableKey = CachedKey<ApiKeyRecord> & { owner: CachedKeyOwner };

const ADMIN: AdminPrincipal = Object.freeze({ kind: 'admin' });

/** RFC 6750: a 401 for a bad token names the scheme and says the token is the problem. */
function keyRefused(code: 'INVALID_API_KEY' | 'API_KEY_DISABLED' | 'API_KEY_EXPIRED', detail: string): ApiError {
  return new ApiError(code, detail, { headers: { 'WWW-Authenticate': 'Bearer error="invalid_token"' } });
}

export class KeyAuthenticator {
  readonly #parts: KeyAuthenticatorParts;

  constructor(parts: KeyAuthenticatorParts) {
    this.#parts = parts;
  }

  async authenticate(input: AuthenticateInput): Promise<AuthenticatedRequest> {
    const { config, usage } = this.#parts;
    const queryToken = config.stream.allowQueryToken ? input.queryToken : undefined;
    const token = parseBearerToken(input.authorization, queryToken);
    const tokenHash = hashToken(token);
    const { adminTokens } = this.#parts;
    if (adminTokens.couldMatch(token) && (await adminTokens.matches(tokenHash))) return { principal: ADMIN };

    const now = Date.now();
    const { key, owner } = await this.#usableKey(token, tokenHash, now);
    // requestCount is "total requests made with the key" (spec 2.1): refused ones below count too.
    usage.record(key.id, new Date(now));
    const rateLimit = await this.#consumeWindow(key);
    // The role is checked before the quota so a refused role switch does not use up quota.
    const role = resolveRole(owner, input.role);
    if (key.remaining !== null) await this.#consumeQuota(key.id, now, rateLimit);
    const principal: KeyPrincipal = { kind: 'key', keyId: key.id, userId: key.userId, role, keyPermissions: key.permissions };
    return rateLimit ? { principal, rateLimit } : { principal };
  }

  /** Counts the request in the key's window; 429 RATE_LIMITED with Retry-After when it is full. */
  async #consumeWindow(key: ApiKeyRecord): Promise<RateLimitState | undefined> {
    const limit = windowLimitFor(key, this.#parts.config.apiKeys.rateLimit);
    if (!limit) return undefined;
    const decision = await this.#parts.limiter.consume(key.id, limit.max, limit.windowMs);
    const state = toRateLimitState(decision);
    if (!decision.allowed) {
      throw new ApiError('RATE_LIMITED', `Rate limit of ${limit.max} requests per ${limit.windowMs} ms exceeded`, {
        headers: { ...rateLimitHeaders(state), 'Retry-After': String(Math.max(1, state.resetSeconds)) },
      });
    }
    return state;
  }

  /** Takes one request from the key's quota; 429 USAGE_EXCEEDED when none is left. */
  async #consumeQuota(keyId: string, now: number, rateLimit: RateLimitState | undefined): Promise<void> {
    const taken = await this.#parts.quota.consume(keyId, now);
    if (taken.allowed) return;
    const headers: Record<string, string> = rateLimit ? rateLimitHeaders(rateLimit) : {};
    if (taken.retryAfterMs !== null) headers['Retry-After'] = String(Math.max(1, Math.ceil(taken.retryAfterMs / 1000)));
    throw new ApiError('USAGE_EXCEEDED', 'This API key has used up its request quota', { headers });
  }

  /**
   * For /admin routes: only the admin token passes. A valid API key is 403 (it is known, just not
   * allowed here) and is not counted against its limits, since it is not served.
   */
  async authenticateAdmin(input: AuthenticateInput): Promise<AdminPrincipal> {
    const token = parseBearerToken(input.authorization, undefined);
    const tokenHash = hashToken(token);
    if (await this.#parts.adminTokens.matches(tokenHash)) return ADMIN;
    await this.#usableKey(token, tokenHash, Date.now());
    throw new ApiError('FORBIDDEN', 'This endpoint requires the admin token');
  }

  /** The key behind a token, or the 401 that says why it cannot be used. */
  async #usableKey(token: string, tokenHash: string, now: number): Promise<UsableKey> {
    // Tokens without our prefix were never issued: no need to look them up.
    const cached = looksLikeApiKey(token) ? await this.#parts.cache.get(tokenHash, now) : null;
    // A key whose owner is gone is as good as unknown.
    if (!cached || !cached.owner) throw keyRefused('INVALID_API_KEY', 'The API key is not valid');
    const { key, owner } = cached;
    if (!key.enabled) throw keyRefused('API_KEY_DISABLED', 'This API key has been disabled');
    if (key.expiresAt !== null && Date.parse(key.expiresAt) <= now) {
      throw keyRefused('API_KEY_EXPIRED', `This API key expired at ${key.expiresAt}`);
    }
    return { key, owner };
  }
}

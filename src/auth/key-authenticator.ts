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
import type { AdminPrincipal, KeyPrincipal, Principal } from '../model/principal.ts';
import type { RateLimitDecision, RateLimiter } from './rate-limit/rate-limiter.ts';
import { rateLimitHeaders, toRateLimitState, windowLimitFor, type WindowLimit } from './rate-limit/key-rate-limit.ts';
import { resolveRole } from './resolve-role.ts';
import { hashToken } from './token-hash.ts';
import { consoleKeyIdleUntil } from './keys/console-key.ts';
import type { JwtAuthenticator } from './jwt/jwt-authenticator.ts';
import { looksLikeJwt } from './jwt/jwt-shape.ts';

export interface KeyAuthenticatorParts {
  config: SvcConfig;
  adminTokens: AdminTokenVerifier;
  cache: KeyCache<ApiKeyRecord>;
  usage: UsageRecorder;
  limiter: RateLimiter;
  quota: UsageQuota;
  /** The roles the configuration in force defines. */
  definedRoles: () => ReadonlySet<string>;
  /** Present when auth.jwt is configured: JWT-shaped tokens go to it, not to the key cache. */
  jwt?: JwtAuthenticator;
}

type UsableKey = CachedKey<ApiKeyRecord> & { owner: CachedKeyOwner };

const ADMIN: AdminPrincipal = Object.freeze({ kind: 'admin' });

/** RFC 6750: a 401 for a bad token names the scheme and says the token is the problem. */
function keyRefused(code: 'INVALID_API_KEY' | 'API_KEY_DISABLED' | 'API_KEY_EXPIRED', detail: string): ApiError {
  return new ApiError(code, detail, { headers: { 'WWW-Authenticate': 'Bearer error="invalid_token"' } });
}

export class KeyAuthenticator {
  readonly #parts: KeyAuthenticatorParts;
  /** The window each limited key request was admitted under, for chargeMore (dropped with the request). */
  readonly #windows = new WeakMap<KeyPrincipal, WindowLimit>();

  constructor(parts: KeyAuthenticatorParts) {
    this.#parts = parts;
  }

  /**
   * Synchronous when all it needs is in memory (a cached key, an in-process window, no quota): the
   * result is returned, or the ApiError thrown, at once. A promise only when it must read the
   * database or Redis, so the common request pays no promise hops for authentication.
   */
  authenticate(input: AuthenticateInput): AuthenticatedRequest | Promise<AuthenticatedRequest> {
    const queryToken = this.#parts.config.stream.allowQueryToken ? input.queryToken : undefined;
    const token = parseBearerToken(input.authorization, queryToken);
    const tokenHash = hashToken(token);
    if (this.#parts.adminTokens.couldMatch(token)) return this.#authenticateAdminOrKey(input, token, tokenHash);
    // By shape alone, before any lookup: a JWT is never looked up as a key.
    const { jwt } = this.#parts;
    if (jwt && looksLikeJwt(token)) return jwt.authenticate(token, input);
    const now = Date.now();
    // Tokens without our prefix were never issued: no need to look them up.
    const cached = looksLikeApiKey(token) ? this.#parts.cache.peek(tokenHash, now) : null;
    if (cached === undefined)
      return this.#parts.cache.get(tokenHash, now).then((loaded) => this.#admit(input, loaded, now));
    return this.#admit(input, cached, now);
  }

  async #authenticateAdminOrKey(
    input: AuthenticateInput,
    token: string,
    tokenHash: string,
  ): Promise<AuthenticatedRequest> {
    if (await this.#parts.adminTokens.matches(tokenHash)) return { principal: ADMIN };
    const { jwt } = this.#parts;
    if (jwt && looksLikeJwt(token)) return jwt.authenticate(token, input);
    const now = Date.now();
    return this.#admit(input, await this.#cachedKey(token, tokenHash, now), now);
  }

  /** Counts and limits a request made with a known key (or refuses it); async only where a limit needs I/O. */
  #admit(
    input: AuthenticateInput,
    cached: CachedKey<ApiKeyRecord> | null,
    now: number,
  ): AuthenticatedRequest | Promise<AuthenticatedRequest> {
    const { key, owner } = usableKey(cached, now);
    // requestCount is "total requests made with the key" (spec 2.1): refused ones below count too.
    this.#parts.usage.record(key.id, new Date(now));
    const limit = windowLimitFor(key, this.#parts.config.apiKeys.rateLimit);
    if (!limit) return this.#afterWindow(input, key, owner, now, undefined);
    const decision = this.#parts.limiter.consume(key.id, limit.max, limit.windowMs);
    if (decision instanceof Promise) {
      return decision.then((settled) => this.#afterWindow(input, key, owner, now, windowState(limit, settled), limit));
    }
    return this.#afterWindow(input, key, owner, now, windowState(limit, decision), limit);
  }

  #afterWindow(
    input: AuthenticateInput,
    key: ApiKeyRecord,
    owner: CachedKeyOwner,
    now: number,
    rateLimit: RateLimitState | undefined,
    limit?: WindowLimit,
  ): AuthenticatedRequest | Promise<AuthenticatedRequest> {
    // The role is checked before the quota so a refused role switch does not use up quota.
    const role = resolveRole(owner, input.role, this.#parts.definedRoles);
    const principal: KeyPrincipal =
      key.expiresAt === null
        ? { kind: 'key', keyId: key.id, userId: key.userId, role, keyPermissions: key.permissions }
        : {
            kind: 'key',
            keyId: key.id,
            userId: key.userId,
            role,
            keyPermissions: key.permissions,
            expiresAt: key.expiresAt,
          };
    const result: AuthenticatedRequest = rateLimit ? { principal, rateLimit } : { principal };
    if (limit) this.#windows.set(principal, limit);
    if (key.remaining === null) return result;
    return this.#consumeQuota(key.id, now, rateLimit).then(() => result);
  }

  /**
   * Counts `count` more requests against the window a key request was admitted under (a batch of
   * operations counts once per operation): the window's state after them, or undefined when the
   * caller is not under a limit; 429 RATE_LIMITED as soon as the window is full.
   */
  async chargeMore(principal: Principal, count: number): Promise<RateLimitState | undefined> {
    if (principal.kind !== 'key') return undefined;
    const limit = this.#windows.get(principal);
    if (!limit) return undefined;
    let state: RateLimitState | undefined;
    for (let i = 0; i < count; i++)
      state = windowState(limit, await this.#parts.limiter.consume(principal.keyId, limit.max, limit.windowMs));
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
    const { jwt } = this.#parts;
    if (jwt && looksLikeJwt(token)) {
      // A valid token is known, just not allowed here (as a key is); an invalid one is its 401.
      await jwt.authenticate(token, input);
      throw new ApiError('FORBIDDEN', 'This endpoint requires the admin token');
    }
    const now = Date.now();
    usableKey(await this.#cachedKey(token, tokenHash, now), now);
    throw new ApiError('FORBIDDEN', 'This endpoint requires the admin token');
  }

  #cachedKey(token: string, tokenHash: string, now: number): Promise<CachedKey<ApiKeyRecord> | null> {
    // Tokens without our prefix were never issued: no need to look them up.
    return looksLikeApiKey(token) ? this.#parts.cache.get(tokenHash, now) : Promise.resolve(null);
  }
}

/** The key behind a token, or the 401 that says why it cannot be used. */
function usableKey(cached: CachedKey<ApiKeyRecord> | null, now: number): UsableKey {
  // A key whose owner is gone is as good as unknown.
  if (!cached?.owner) throw keyRefused('INVALID_API_KEY', 'The API key is not valid');
  const { key, owner } = cached;
  if (!key.enabled) throw keyRefused('API_KEY_DISABLED', 'This API key has been disabled');
  if (key.expiresAt !== null && Date.parse(key.expiresAt) <= now) {
    throw keyRefused('API_KEY_EXPIRED', `This API key expired at ${key.expiresAt}`);
  }
  // The cached row's last use lags the real one by at most the cache's lifetime and a usage flush:
  // seconds, against an idle limit of minutes.
  if (key.console && consoleKeyIdleUntil(key) <= now) {
    throw keyRefused('API_KEY_EXPIRED', 'This console key expired: it was not used for too long. Sign in again');
  }
  return { key, owner };
}

/** The window's state for the RateLimit-* headers; 429 RATE_LIMITED with Retry-After when it is full. */
function windowState(limit: WindowLimit, decision: RateLimitDecision): RateLimitState {
  const state = toRateLimitState(decision);
  if (!decision.allowed) {
    throw new ApiError('RATE_LIMITED', `Rate limit of ${limit.max} requests per ${limit.windowMs} ms exceeded`, {
      headers: { ...rateLimitHeaders(state), 'Retry-After': String(Math.max(1, state.resetSeconds)) },
    });
  }
  return state;
}

// The identity component and API keys as the rest of the service sees them.
import type { AdminPrincipal, KeyPrincipal, Principal } from '../model/principal.ts';
import type { TokenRequest } from './keys/token-request.ts';
import type { IssuedApiKey } from './keys/api-key-issuer.ts';
import type { UserDirectory } from './identity/user-directory.ts';
import type { SessionCredential } from './identity/session-credential.ts';
import type { KeyDirectory } from './keys/key-directory.ts';
import type { RateLimitState } from './rate-limit/key-rate-limit.ts';
import type { SignInMethods } from './identity/sign-in-methods.ts';

export type { RateLimitState };

export interface AuthenticateInput {
  /** The raw Authorization header. */
  authorization?: string;
  /** `X-Service-Role` header: act as another of the user's allowedRoles. */
  role?: string;
  /** `?token=` on the stream endpoint, when the deployment allows it. */
  queryToken?: string;
}

export interface AuthenticatedRequest {
  principal: Principal;
  /** Present for key requests under a rate limit: sent as RateLimit-* headers. */
  rateLimit?: RateLimitState;
}

/** A key, every key of a user, or the stored admin token was changed or removed (here or on another node). */
export type AccessChange = { keyId: string } | { userId: string } | { adminToken: true };

export interface AuthComponent {
  /** Creates the identity, key and admin-token tables. Idempotent. */
  migrate(): Promise<void>;
  /** Resolves the caller; throws ApiError (401/403/429) when it may not proceed. */
  authenticate(input: AuthenticateInput): Promise<AuthenticatedRequest>;
  /**
   * The same, for the per-request hook: answers (or throws the ApiError) synchronously when the key
   * and its window are in memory, and returns a promise only when it has to read the database or Redis.
   */
  authenticateNow(input: AuthenticateInput): AuthenticatedRequest | Promise<AuthenticatedRequest>;
  /**
   * For `/admin/…`: resolves only for the admin token. 401 without (or with an unknown) credential,
   * 403 FORBIDDEN for a valid API key. Does not count against any key's limits.
   */
  authenticateAdmin(input: AuthenticateInput): Promise<AdminPrincipal>;
  /**
   * The identity component's (better-auth) handler for requests under `auth.basePath`; email sign-in
   * goes through the login throttle (throws 429 RATE_LIMITED).
   */
  handleIdentityRequest(request: Request): Promise<Response>;
  /**
   * POST /token: checks the credentials under the login throttle and issues a key; the secret is in
   * the result only. `clientAddress` is the caller's address, as the HTTP layer sees it.
   */
  issueKey(request: TokenRequest, clientAddress: string): Promise<IssuedApiKey>;
  /**
   * POST /token without email and password: issues a key for the signed-in session the credential
   * carries (401 without a valid one; 403 for a cookie from an untrusted origin).
   */
  issueKeyForSession(request: TokenRequest, credential: SessionCredential): Promise<IssuedApiKey>;
  /**
   * Runs another check of a password (a /token replay opens its sealed answer with it) under the same
   * login throttle, so it cannot be used to guess passwords faster; `failed` tells a wrong password.
   */
  guardPasswordCheck<T>(
    email: string,
    clientAddress: string,
    check: () => Promise<T>,
    failed: (error: unknown) => boolean,
  ): Promise<T>;
  /** The ways of signing in that are on (GET {auth.basePath}/methods). */
  readonly signInMethods: SignInMethods;
  /** Users for the admin API and the CLI. */
  readonly users: UserDirectory;
  /** API keys for the admin API. */
  readonly keys: KeyDirectory;
  /**
   * Calls `listener` after every key or user change, made in this process or told by another node
   * (the same notices that drop cached keys). Returns the function that stops it.
   */
  onAccessChanged(listener: (change: AccessChange) => void): () => void;
  /**
   * Whether a key request resolved earlier (with `requestedRole` as its X-Service-Role) would be
   * resolved the same way now: the key exists, is enabled and unexpired with the same expiry and
   * permissions, and its owner still gets the same role. Reads the database, not the cache.
   */
  stillValid(principal: KeyPrincipal, requestedRole: string | undefined): Promise<boolean>;
  /** Writes the request counters buffered in memory now (they are also flushed every second and on close). */
  flushUsage(): Promise<void>;
  close(): Promise<void>;
}

// Builds the auth component: better-auth on the store's database, API keys with their cache,
// limits and usage counters, and the admin token.
import type { FastifyBaseLogger } from 'fastify';
import type { SvcConfig } from '../config/config-types.ts';
import { definedRoles } from '../config/defined-roles.ts';
import type { Store } from '../store/create-store.ts';
import type { AccessChange, AuthComponent } from './auth-component.ts';
import { principalStillValid } from './principal-still-valid.ts';
import { AdminTokenVerifier } from './admin/admin-token-verifier.ts';
import { createAdminTokenTable } from './admin/admin-token-table.ts';
import { ensureStoredAdminToken, type AdminTokenAnnouncer } from './admin/stored-admin-token.ts';
import { buildIdentityOptions } from './identity/build-identity-options.ts';
import { createIdentity } from './identity/identity.ts';
import { resolveIdentitySecret } from './identity/resolve-identity-secret.ts';
import { UserDirectory } from './identity/user-directory.ts';
import { createVerificationMailer } from './identity/verification-mailer.ts';
import { ApiKeyIssuer, issueOutcome, type IssuedApiKey } from './keys/api-key-issuer.ts';
import type { TokenRequest } from './keys/token-request.ts';
import { sessionHeaders } from './identity/session-credential.ts';
import { ApiError } from '../errors/api-error.ts';
import type { ApiKeyRecord } from './keys/api-key-record.ts';
import { ApiKeyRepository } from './keys/api-key-repository.ts';
import { createApiKeyTable } from './keys/api-key-table.ts';
import { KeyCache } from './keys/key-cache.ts';
import type { ClusterSignals } from '../cluster/cluster-signals.ts';
import { KeyDirectory } from './keys/key-directory.ts';
import { UsageQuota } from './keys/usage-quota.ts';
import { UsageRecorder } from './keys/usage-recorder.ts';
import { KeyAuthenticator } from './key-authenticator.ts';
import { LoginThrottle } from './rate-limit/login-throttle.ts';
import { throttleSignIn } from './identity/throttled-sign-in.ts';
import { throttleSignUp } from './identity/throttled-sign-up.ts';
import { answerIdentityFailures } from './identity/identity-failures.ts';
import { LOGIN_THROTTLE_DEFAULTS, SIGN_UP_THROTTLE_DEFAULTS } from '../config/config-schema.ts';
import {
  deletionLinkOptions,
  emailAndPasswordEnabled,
  type AccountEvents,
} from './identity/account-management-options.ts';
import { guardAccountRoutes } from './identity/guarded-account-routes.ts';
import { JwtAuthenticator } from './jwt/jwt-authenticator.ts';
import { signInMethods } from './identity/sign-in-methods.ts';
import { getMigrations } from 'better-auth/db/migration';
import type { BetterAuthOptions } from 'better-auth';
import type { RateLimiter } from './rate-limit/rate-limiter.ts';
import { MemoryRateLimiter } from './rate-limit/memory-rate-limiter.ts';
import { RedisRateLimiter } from './rate-limit/redis-rate-limiter.ts';

// Picks the rate limiter: Redis when the deployment has one (several processes share limits), else memory.
function createRateLimiter(
  config: SvcConfig,
  log: FastifyBaseLogger,
  options: { redisKeyPrefix?: string } = {},
): RateLimiter {
  const url = config.redis?.url;
  if (url === undefined || url === '') return new MemoryRateLimiter();
  return new RedisRateLimiter({
    url,
    log,
    ...(options.redisKeyPrefix !== undefined ? { keyPrefix: options.redisKeyPrefix } : {}),
  });
}

// Creates or extends the identity component's tables with better-auth's own migration planner.
async function migrateIdentity(options: BetterAuthOptions): Promise<void> {
  const { runMigrations } = await getMigrations(options);
  await runMigrations();
}

export interface AuthComponentOptions {
  /** How long a key (and its owner's roles) is trusted from memory. Other processes see changes after this. */
  keyCacheTtlMs?: number;
  /** How often buffered request counters are written. */
  usageFlushMs?: number;
  /** Namespace of rate-limit counters in Redis. */
  redisKeyPrefix?: string;
  /** Where SVC_SECRET is read from. */
  env?: NodeJS.ProcessEnv;
  /** Tells other processes of key and user changes (and hears theirs), so their caches drop them at once. */
  signals?: ClusterSignals;
  /** The roles defined now; the running service passes its registry's (definitions can be reloaded). */
  definedRoles?: () => ReadonlySet<string>;
  /** Shows a generated admin token once (default: a block on standard error). */
  announceAdminToken?: AdminTokenAnnouncer;
  /**
   * Whether migrate() generates the stored admin token when none is configured. Only `svc start` (the
   * runtime) asks for it: a token made as the side effect of another command would be printed where
   * nobody expects it and become valid at the next start.
   */
  generateAdminToken?: boolean;
}

export const KEYS_CHANGED_TOPIC = 'keys';
export const ADMIN_TOKEN_TOPIC = 'admin-token';

const DEFAULT_KEY_CACHE_TTL_MS = 5_000;
const DEFAULT_USAGE_FLUSH_MS = 1_000;
const KEY_CACHE_MAX_ENTRIES = 50_000;

export async function createAuthComponent(
  config: SvcConfig,
  store: Store,
  log: FastifyBaseLogger,
  options: AuthComponentOptions = {},
): Promise<AuthComponent> {
  const cacheTtlMs = options.keyCacheTtlMs ?? DEFAULT_KEY_CACHE_TTL_MS;
  const mailer = createVerificationMailer(config.auth.email, log);
  const secret = resolveIdentitySecret(config, store, options.env);
  const roles = options.definedRoles ?? (() => definedRoles(config, config.resources));
  const keyRepository = new ApiKeyRepository(store);
  // Users whose reset link is being sent as an invitation right now (the mail goes out within the call).
  const invitations = new Set<string>();
  // Resets and deletions through better-auth's endpoints revoke keys as the admin API does.
  const accountEvents: AccountEvents = {
    passwordReset: async (userId) => {
      await keyRepository.deleteByUser(userId);
      await userChanged(userId);
    },
    userDeleting: (userId) => keyRepository.deleteByUser(userId),
    userDeleted: (userId) => userChanged(userId),
    isInvitation: (userId) => invitations.has(userId),
  };
  const identityOptions = buildIdentityOptions({
    config,
    store,
    secret,
    mailer,
    log,
    definedRoles: roles,
    accountEvents,
  });
  const identity = createIdentity(identityOptions);
  const deletionLinks = createIdentity(deletionLinkOptions(identityOptions, mailer, log));
  const usage = new UsageRecorder(
    (batch) => keyRepository.addUsage(batch),
    log,
    options.usageFlushMs ?? DEFAULT_USAGE_FLUSH_MS,
  );
  const quota = new UsageQuota(keyRepository, cacheTtlMs);
  const limiter = createRateLimiter(
    config,
    log,
    options.redisKeyPrefix !== undefined ? { redisKeyPrefix: options.redisKeyPrefix } : {},
  );
  // With Redis, serve shared limits from the first request rather than per-process ones while connecting.
  await limiter.ready();
  const adminTokens = new AdminTokenVerifier(config, store, cacheTtlMs);
  const throttle = new LoginThrottle(limiter, config.auth.loginThrottle ?? LOGIN_THROTTLE_DEFAULTS);

  // Declared before the cache's loader runs (first request, after construction).
  const signals = options.signals;
  // Long-lived requests (streams) hear of the changes that drop cached keys, local and remote alike.
  const accessListeners = new Set<(change: AccessChange) => void>();
  const accessChanged = (change: AccessChange): void => {
    for (const listener of accessListeners) {
      try {
        listener(change);
      } catch (error) {
        log.error({ err: error }, 'an access-change listener failed');
      }
    }
  };
  // Awaited: when the admin API answers, the other processes have been told.
  const userChanged = async (userId: string): Promise<void> => {
    cache.invalidateUser(userId);
    accessChanged({ userId });
    await signals?.publish(KEYS_CHANGED_TOPIC, { userId });
  };
  const users: UserDirectory = new UserDirectory(
    identity,
    config,
    {
      userChanged,
      userDeleting: (userId) => keyRepository.deleteByUser(userId),
      async asInvitation(userId, send) {
        invitations.add(userId);
        try {
          await send();
        } finally {
          invitations.delete(userId);
        }
      },
    },
    roles,
    store,
  );
  const cache = new KeyCache<ApiKeyRecord>(
    async (hash) => {
      const key = await keyRepository.findByHash(hash);
      if (!key) return null;
      return { key, owner: (await users.roles(key.userId)) ?? null };
    },
    { ttlMs: cacheTtlMs, maxEntries: KEY_CACHE_MAX_ENTRIES },
  );
  const forgetKey = (keyId: string): void => {
    cache.invalidateKey(keyId);
    quota.forget(keyId);
  };
  const keys = new KeyDirectory(keyRepository, usage, async (keyId) => {
    forgetKey(keyId);
    accessChanged({ keyId });
    await signals?.publish(KEYS_CHANGED_TOPIC, { keyId });
  });
  signals?.on(KEYS_CHANGED_TOPIC, (payload) => {
    if (typeof payload.keyId === 'string') {
      forgetKey(payload.keyId);
      accessChanged({ keyId: payload.keyId });
    }
    if (typeof payload.userId === 'string') {
      cache.invalidateUser(payload.userId);
      accessChanged({ userId: payload.userId });
    }
  });
  signals?.on(ADMIN_TOKEN_TOPIC, () => {
    adminTokens.forget();
    accessChanged({ adminToken: true });
  });
  const issuer = new ApiKeyIssuer(identity, keyRepository, config);
  const issueForRequest = (request: TokenRequest, clientAddress: string): Promise<IssuedApiKey> => {
    if (!emailAndPasswordEnabled(config)) {
      throw new ApiError('EMAIL_PASSWORD_DISABLED', {
        detail: 'Keys are issued for a signed-in session here, not for an email and password',
        field: 'password',
      });
    }
    const email = request.email ?? '';
    return throttle.guard(email, clientAddress, () => issuer.issue(request), issueOutcome);
  };
  const jwtConfig = config.auth.jwt;
  const jwt = jwtConfig
    ? new JwtAuthenticator({ jwt: jwtConfig, rateLimit: config.apiKeys.rateLimit, limiter, definedRoles: roles })
    : undefined;
  const authenticator = new KeyAuthenticator({
    config,
    adminTokens,
    cache,
    usage,
    limiter,
    quota,
    definedRoles: roles,
    ...(jwt ? { jwt } : {}),
  });

  return {
    async migrate() {
      await migrateIdentity(identityOptions);
      await createApiKeyTable(store);
      await createAdminTokenTable(store);
      if (adminTokens.source === 'stored' && options.generateAdminToken === true)
        await ensureStoredAdminToken(store, log, options.announceAdminToken);
    },
    authenticate: async (input) => authenticator.authenticate(input),
    authenticateNow: (input) => authenticator.authenticate(input),
    chargeMore: (principal, count) => authenticator.chargeMore(principal, count),
    authenticateAdmin: (input) => authenticator.authenticateAdmin(input),
    handleIdentityRequest: answerIdentityFailures(
      throttleSignUp(
        guardAccountRoutes({
          handler: throttleSignIn((request) => identity.handler(request), throttle, config.auth.basePath),
          identity,
          deletionLinks,
          throttle,
          basePath: config.auth.basePath,
          emailAndPasswordEnabled: emailAndPasswordEnabled(config),
        }),
        limiter,
        config.auth.signUpThrottle ?? SIGN_UP_THROTTLE_DEFAULTS,
        config.auth.basePath,
      ),
      (error) => store.dialect.isConnectionError(error),
      log,
    ),
    issueKey: (request, clientAddress) => issueForRequest(request, clientAddress),
    async issueKeyForSession(request, credential) {
      const context = await identity.context;
      const headers = sessionHeaders(credential, context.authCookies.sessionToken.name, (origin) =>
        context.isTrustedOrigin(origin),
      );
      const session = await identity.session(headers);
      if (!session) throw new ApiError('UNAUTHORIZED', 'The session is not valid: signed out, expired or revoked');
      return issuer.issueFor({ id: session.userId, emailVerified: session.emailVerified }, request);
    },
    guardPasswordCheck: (email, clientAddress, check, failed) =>
      throttle.guard(email, clientAddress, check, (error) => (failed(error) ? 'failed' : 'unchecked')),
    signInMethods: signInMethods(config),
    users,
    keys,
    onAccessChanged(listener) {
      accessListeners.add(listener);
      return () => accessListeners.delete(listener);
    },
    async stillValid(principal, requestedRole) {
      const key = await keyRepository.findById(principal.keyId);
      const owner = key ? await users.roles(key.userId) : undefined;
      return principalStillValid(principal, requestedRole, key, owner, roles);
    },
    flushUsage: () => usage.flush(),
    async close() {
      await usage.close();
      await limiter.close();
      mailer.close();
    },
  };
}

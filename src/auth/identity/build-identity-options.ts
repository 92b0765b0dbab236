// The better-auth configuration derived from ours: same database as the store, `svc_`-prefixed
// tables, the role fields of spec 2.3, email verification, social providers that have credentials, and the plugins in identity-plugins.ts.
import type { BetterAuthOptions } from 'better-auth';
import type { FastifyBaseLogger } from 'fastify';
import type { SvcConfig } from '../../config/config-types.ts';
import { identityPlugins } from './identity-plugins.ts';
import { socialProviders } from './social-providers.ts';
import type { Store } from '../../store/create-store.ts';
import { definedRoles } from '../../config/defined-roles.ts';
import { IDENTITY_TABLES } from './identity-tables.ts';
import { roleGuardHooks } from './role-guard-hooks.ts';
import type { VerificationMailer } from './verification-mailer.ts';
import { bearer } from 'better-auth/plugins/bearer';
import { accountManagementOptions, emailAndPasswordEnabled, type AccountEvents } from './account-management-options.ts';

/** Header the identity route sets from Fastify's view of the client address (which honours trustProxy). */
export const CLIENT_IP_HEADER = 'x-svc-client-ip';

export interface IdentityOptionsInput {
  config: SvcConfig;
  store: Store;
  secret: string;
  mailer: VerificationMailer;
  log: FastifyBaseLogger;
  /** The roles defined now; default: those of `config`. */
  definedRoles?: () => ReadonlySet<string>;
  /** Told of password resets and account deletions (keys to revoke); default: nothing to do. */
  accountEvents?: AccountEvents;
}

const NO_ACCOUNT_EVENTS: AccountEvents = {
  passwordReset: async () => {},
  userDeleting: async () => {},
  userDeleted: async () => {},
};

export function identityBaseUrl(config: SvcConfig): string {
  const configured = config.auth.baseUrl?.trim();
  return (configured || `http://localhost:${config.server.port}`).replace(/\/+$/, '');
}

export function buildIdentityOptions({
  config,
  store,
  secret,
  mailer,
  log,
  definedRoles: roles,
  accountEvents,
}: IdentityOptionsInput): BetterAuthOptions {
  const account = accountManagementOptions(config, mailer, log, accountEvents ?? NO_ACCOUNT_EVENTS);
  const requireVerification = config.auth.requireEmailVerification;
  return {
    appName: 'svc',
    baseURL: identityBaseUrl(config),
    basePath: config.auth.basePath,
    secret,
    database: { db: store.db, type: store.dialect.name },
    // better-auth always adds baseURL's origin, the service's own; CORS origins are not trusted for this
    // unless listed here too, since a cookie sent from a trusted origin acts as the signed-in user.
    trustedOrigins: [...(config.auth.trustedOrigins ?? [])],
    telemetry: { enabled: false },
    emailAndPassword: {
      ...account.emailAndPassword,
      enabled: emailAndPasswordEnabled(config),
      // Called only when verification is required: the sign-up answers as for a new address, and the
      // owner hears of the attempt. Either way one mail goes out before the answer, so its time tells little.
      onExistingUserSignUp: async ({ user }) => {
        try {
          await mailer.sendSignUpAttempt(user.email);
        } catch (error) {
          log.error({ err: error, userId: user.id }, 'could not send the sign-up attempt notice');
        }
      },
    },
    emailVerification: {
      // The sender is always set so users can ask for a link (POST /auth/send-verification-email);
      // sign-up sends one on its own only when verification is required.
      sendOnSignUp: requireVerification,
      autoSignInAfterVerification: true,
      sendVerificationEmail: async ({ user, url }) => {
        try {
          await mailer.send(user.email, url);
        } catch (error) {
          // A mail outage must not fail the sign-up: the user can request another link later.
          log.error({ err: error, userId: user.id }, 'could not send the email verification message');
        }
      },
    },
    socialProviders: socialProviders(config),
    // `Authorization: Bearer <session token>` (the `token` of a sign-in answer) as well as the cookie,
    // then the providers and sign-in methods that are configured.
    plugins: [bearer(), ...identityPlugins(config, mailer, log)],
    user: {
      ...account.user,
      modelName: IDENTITY_TABLES.user,
      additionalFields: {
        // input: false: sign-up cannot choose its own role; only the admin API and the CLI set these.
        primaryRole: { type: 'string', required: false, defaultValue: config.auth.defaultRole, input: false },
        allowedRoles: { type: 'string', required: false, defaultValue: '[]', input: false },
      },
    },
    databaseHooks: { user: roleGuardHooks(roles ?? (() => definedRoles(config, config.resources))) },
    session: { modelName: IDENTITY_TABLES.session },
    account: { modelName: IDENTITY_TABLES.account },
    verification: { modelName: IDENTITY_TABLES.verification },
    advanced: {
      cookiePrefix: 'svc',
      // Explicit, because better-auth turns both checks off when NODE_ENV is `test`.
      disableOriginCheck: false,
      disableCSRFCheck: false,
      ipAddress: { ipAddressHeaders: [CLIENT_IP_HEADER] },
    },
    // Anything thrown that is not one of its own errors comes to us (identity-failures.ts) instead of
    // becoming an empty 500 with a stack printed on standard error.
    onAPIError: { throw: true },
    logger: {
      log: (level, message, ...args: unknown[]) => {
        // An Error would be logged as {}; its name and message (one line of JSON) say what happened.
        const details =
          args.length > 0
            ? { details: args.map((arg) => (arg instanceof Error ? { name: arg.name, message: arg.message } : arg)) }
            : {};
        log[level]({ component: 'identity', ...details }, message);
      },
    },
  };
}

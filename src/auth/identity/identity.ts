// The identity component (better-auth) as the rest of src/auth uses it: its fetch handler, its
// context (users, accounts, password hashing), the session a request carries, and its options (for
// migrations).
import { betterAuth, type Auth, type AuthContext, type BetterAuthOptions } from 'better-auth';

/** The signed-in user a session cookie or session bearer token stands for. */
export interface IdentitySession {
  userId: string;
  email: string;
  emailVerified: boolean;
}

export interface Identity {
  /** Answers a Web request under `auth.basePath`. */
  handler(request: Request): Promise<Response>;
  /** The session the headers carry (cookie, or `Authorization: Bearer <session token>`); null when none is valid. */
  session(headers: Headers): Promise<IdentitySession | null>;
  /**
   * Mails the user a single-use link to set a new password, as POST {basePath}/request-password-reset
   * does (the administrator's reset and invitation, which pass no throttle: the admin token is checked).
   */
  requestPasswordReset(email: string): Promise<void>;
  /** better-auth's context: internal adapter, password hashing, options. */
  readonly context: Promise<AuthContext>;
  readonly options: BetterAuthOptions;
}

/**
 * better-auth is instantiated on first use, not here: its schema check must not run before
 * migrate() has created the tables.
 */
export function createIdentity(options: BetterAuthOptions): Identity {
  let auth: Auth | undefined;
  const instance = (): Auth => (auth ??= betterAuth(options));
  return {
    handler: (request) => instance().handler(request),
    async session(headers) {
      // Authoritative (read from the database, not a cookie cache): a revoked session must not mint keys.
      const found = await instance().api.getSession({ headers, query: { disableCookieCache: true } });
      if (!found) return null;
      return { userId: found.user.id, email: found.user.email, emailVerified: found.user.emailVerified };
    },
    async requestPasswordReset(email) {
      await instance().api.requestPasswordReset({ body: { email } });
    },
    get context() {
      return instance().$context as Promise<AuthContext>;
    },
    options,
  };
}

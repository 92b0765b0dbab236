// The identity component (better-auth) as the rest of src/auth uses it: its fetch handler, its
// context (users, accounts, password hashing) and its options (for migrations).
import { betterAuth, type Auth, type AuthContext, type BetterAuthOptions } from 'better-auth';

export interface Identity {
  /** Answers a Web request under `auth.basePath`. */
  handler(request: Request): Promise<Response>;
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
    get context() {
      return instance().$context as Promise<AuthContext>;
    },
    options,
  };
}

// Who is making a request, as every later stage (permissions, events, webhooks) needs to know it.
import type { Action } from '../config/config-types.ts';

/** Spec 2.2: resource → action → field names (`"*"` = every field the role allows). */
export type KeyPermissions = Record<string, Partial<Record<Action, string[]>>>;

export interface AdminPrincipal {
  readonly kind: 'admin';
}

export interface KeyPrincipal {
  readonly kind: 'key';
  readonly keyId: string;
  readonly userId: string;
  /** The role in force for this request (primaryRole, or X-Service-Role when allowed). */
  readonly role: string;
  /** Null when the key was issued without permissions: it inherits the role's. */
  readonly keyPermissions: KeyPermissions | null;
  /** The key's expiry when it has one (long-lived requests such as streams end then). */
  readonly expiresAt?: string;
}

/**
 * A caller holding an external identity provider's JWT (auth.jwt): it acts as a key holder of the
 * token's role would, with the token's subject as its user id; it has no key and no key limits.
 */
export interface JwtPrincipal {
  readonly kind: 'jwt';
  /** The token's user id claim; also `userId`, so row filters on `$userId` read it. */
  readonly subject: string;
  readonly userId: string;
  readonly role: string;
  /** A token carries no key scopes: the role's permissions apply whole. */
  readonly keyPermissions: null;
  /** The token's `exp`: streams opened with it end then. */
  readonly expiresAt: string;
}

export type Principal = AdminPrincipal | KeyPrincipal | JwtPrincipal;

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

export type Principal = AdminPrincipal | KeyPrincipal;

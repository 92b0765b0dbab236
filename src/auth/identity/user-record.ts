// A user as the admin API shows it (spec 2.3): identity fields plus the two role fields. Never the password.
import type { User } from 'better-auth';

export interface UserRecord {
  id: string;
  name: string;
  email: string;
  emailVerified: boolean;
  image: string | null;
  primaryRole: string;
  /** JSON-encoded array, as stored (spec 2.3). */
  allowedRoles: string;
  createdAt: string;
  updatedAt: string;
}

/** better-auth users carry our additional fields as extra members. */
export type IdentityUser = User & { primaryRole?: unknown; allowedRoles?: unknown };

export function toUserRecord(user: IdentityUser, defaultRole: string): UserRecord {
  return {
    id: user.id,
    name: user.name,
    email: user.email,
    emailVerified: user.emailVerified === true,
    image: user.image ?? null,
    primaryRole: typeof user.primaryRole === 'string' && user.primaryRole !== '' ? user.primaryRole : defaultRole,
    allowedRoles: typeof user.allowedRoles === 'string' ? user.allowedRoles : '[]',
    createdAt: new Date(user.createdAt).toISOString(),
    updatedAt: new Date(user.updatedAt).toISOString(),
  };
}

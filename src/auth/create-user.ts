// `svc users create`: a user with a password, role and allowed roles, optionally already verified.
// Same tables and hashing as sign-up; the auth component must have been migrated.
import type { AuthComponent } from './auth-component.ts';
import type { NewUser } from './identity/user-directory.ts';
import type { UserRecord } from './identity/user-record.ts';

export type { NewUser } from './identity/user-directory.ts';

/** Throws ApiError INVALID_RESOURCE_DATA (bad email, password or role) or CONFLICT (email taken). */
export function createUser(auth: AuthComponent, input: NewUser): Promise<UserRecord> {
  return auth.users.create(input);
}

// Checks an email and password against the user's better-auth credential account, with better-auth's
// own password hashing. Unknown email and wrong password take about as long and fail the same way.
import { randomBytes } from 'node:crypto';
import type { AuthContext } from 'better-auth';
import { ApiError } from '../../errors/api-error.ts';
import type { IdentityUser } from './user-record.ts';

const CREDENTIAL_PROVIDER = 'credential';

/** A hash of a random password, verified against when the email is unknown so timing reveals nothing. */
const dummyHashes = new WeakMap<AuthContext, Promise<string>>();

function dummyHash(context: AuthContext): Promise<string> {
  let hash = dummyHashes.get(context);
  if (!hash) {
    hash = context.password.hash(randomBytes(16).toString('hex'));
    dummyHashes.set(context, hash);
  }
  return hash;
}

export function invalidCredentials(): ApiError {
  return new ApiError('INVALID_CREDENTIALS', 'The email or password is not correct');
}

export async function verifyCredentials(context: AuthContext, email: string, password: string): Promise<IdentityUser> {
  const found = await context.internalAdapter.findUserByEmail(email.trim().toLowerCase(), { includeAccounts: true });
  const account = found?.accounts.find((a) => a.providerId === CREDENTIAL_PROVIDER && typeof a.password === 'string');
  const hash = account?.password ?? (await dummyHash(context));
  let valid = false;
  try {
    valid = await context.password.verify({ hash, password });
  } catch {
    // A malformed stored hash is a failed check, not a server error.
    valid = false;
  }
  if (!found || !account || !valid) throw invalidCredentials();
  return found.user as IdentityUser;
}

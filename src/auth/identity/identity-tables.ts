// Table names of the identity component (better-auth): prefixed so no user resource can clash with them.
export const IDENTITY_TABLES = {
  user: 'svc_users',
  session: 'svc_sessions',
  account: 'svc_accounts',
  verification: 'svc_verifications',
} as const;

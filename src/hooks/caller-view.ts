// The caller as a hook sees it: who, never how (no key secret, no token, no key scopes).
import type { Principal } from '../model/principal.ts';
import type { Caller } from './hook-types.ts';

const ADMIN: Caller = Object.freeze({ admin: true });

export function callerView(principal: Principal): Caller {
  if (principal.kind === 'admin') return ADMIN;
  const keyId = principal.kind === 'key' ? principal.keyId : null;
  return Object.freeze({ userId: principal.userId, role: principal.role, keyId });
}

// The values a filter may name as `$userId` and `$role`: what events record of their origin, and what
// role filters, checks and presets are resolved with.
import type { Principal } from './principal.ts';

/** Values a filter may reference as `$userId` and `$role`. */
export interface SessionVariables {
  userId: string | null;
  role: string;
}

export function sessionVariablesOf(principal: Principal): SessionVariables {
  return principal.kind === 'admin'
    ? { userId: null, role: 'admin' }
    : { userId: principal.userId, role: principal.role };
}

// A user may only be given roles the configuration defines: a role it does not name (a typo, or a
// name such as `constructor`) would otherwise be stored and later mean something nobody wrote.
import { listRoles } from '../../config/defined-roles.ts';
import type { ErrorIssue } from '../../errors/api-error.ts';
import { roleProblem } from './user-roles.ts';

export interface RolesToCheck {
  primaryRole?: string;
  allowedRoles?: readonly string[];
}

/** One issue per bad role, naming the field `primaryRole` or the entry `allowedRoles/<i>`. */
export function userRoleIssues(roles: RolesToCheck, defined: ReadonlySet<string>): ErrorIssue[] {
  const issues: ErrorIssue[] = [];
  const check = (role: string, field: string, label: string): void => {
    const problem = roleProblem(role);
    if (problem) issues.push({ detail: `${label}: ${problem}`, field });
    else if (!defined.has(role)) {
      issues.push({
        detail: `${label}: role '${role}' is not defined in the configuration (defined roles: ${listRoles(defined)})`,
        field,
      });
    }
  };
  if (roles.primaryRole !== undefined) check(roles.primaryRole, 'primaryRole', 'primaryRole');
  roles.allowedRoles?.forEach((role, index) => {
    check(role, `allowedRoles/${index}`, `allowedRoles[${index}]`);
  });
  return issues;
}

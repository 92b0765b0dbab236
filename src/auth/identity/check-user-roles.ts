// A user may only be given roles the configuration defines: a role it does not name (a typo, or a
// name such as `constructor`) would otherwise be stored and later mean something nobody wrote.
import { listRoles } from '../../config/defined-roles.ts';
import type { ErrorIssue } from '../../errors/api-error.ts';
import { roleProblem } from './user-roles.ts';

export interface RolesToCheck {
  primaryRole?: string;
  allowedRoles?: readonly string[];
}

/** One issue per bad role, pointing at `/data/attributes/primaryRole` or `/data/attributes/allowedRoles/<i>`. */
export function userRoleIssues(roles: RolesToCheck, defined: ReadonlySet<string>): ErrorIssue[] {
  const issues: ErrorIssue[] = [];
  const check = (role: string, pointer: string, label: string): void => {
    const problem = roleProblem(role);
    if (problem) issues.push({ detail: `${label}: ${problem}`, pointer });
    else if (!defined.has(role)) {
      issues.push({
        detail: `${label}: role '${role}' is not defined in the configuration (defined roles: ${listRoles(defined)})`,
        pointer,
      });
    }
  };
  if (roles.primaryRole !== undefined) check(roles.primaryRole, '/data/attributes/primaryRole', 'primaryRole');
  roles.allowedRoles?.forEach((role, index) => {
    check(role, `/data/attributes/allowedRoles/${index}`, `allowedRoles[${index}]`);
  });
  return issues;
}

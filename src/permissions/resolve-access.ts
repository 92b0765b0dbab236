// Decides an action for a caller: the role's rule, narrowed by the key's scoped permissions (spec 2.2).
import type { Action, ActionRule } from '../config/config-types.ts';
import type { Resource } from '../resources/resource.ts';
import { sessionVariablesOf, type Principal } from '../auth/principal.ts';
import { ApiError } from '../errors/api-error.ts';
import type { AccessGrant } from './access-grant.ts';
import { compileFilter } from './compile-filter.ts';
import { MATCH_ALL } from './filter-node.ts';

const ADMIN_ACTIONS: ReadonlySet<Action> = new Set(['read', 'delete']);

export function resolveAccess(resource: Resource, principal: Principal, action: Action): AccessGrant {
  if (principal.kind === 'admin') {
    if (!ADMIN_ACTIONS.has(action)) {
      throw new ApiError('ADMIN_TOKEN_NOT_ALLOWED', 'The admin token may only read and delete through resource endpoints');
    }
    return { fields: new Set(resource.fieldNames), filter: MATCH_ALL, check: null, preset: {} };
  }
  const roleRules = resource.permissions[principal.role];
  const rule = roleRules?.[action];
  if (rule === undefined) {
    throw new ApiError('FORBIDDEN', `Role '${principal.role}' may not ${action} ${resource.name}`);
  }
  const normalized: ActionRule = rule === true ? {} : rule;
  let fields = new Set(
    normalized.fields === undefined || normalized.fields === '*' ? resource.fieldNames : normalized.fields.filter((f) => resource.fields.has(f)),
  );
  if (principal.keyPermissions !== null) {
    const keyFields = principal.keyPermissions[resource.name]?.[action];
    if (keyFields === undefined) {
      throw new ApiError('KEY_PERMISSION_DENIED', `This API key may not ${action} ${resource.name}`);
    }
    if (!keyFields.includes('*')) {
      const allowed = new Set(keyFields);
      fields = new Set([...fields].filter((f) => allowed.has(f)));
    }
  }
  const vars = sessionVariablesOf(principal);
  const preset: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(normalized.preset ?? {})) {
    preset[field] = value === '$userId' ? vars.userId : value === '$role' ? vars.role : value;
  }
  return {
    fields,
    filter: normalized.filter ? compileFilter(normalized.filter, resource, vars) : MATCH_ALL,
    check: normalized.check ? compileFilter(normalized.check, resource, vars) : null,
    preset,
  };
}

// Key permissions (spec 2.2, docs/roles.md): `{ "<resource>": { "<action>": ["field", …] | ["*"] } }`.
// Each problem is reported with a pointer into the permissions object (400 INVALID_PERMISSIONS).
import { ACTIONS, type Action } from '../../config/config-types.ts';
import { ApiError, type ErrorIssue } from '../../errors/api-error.ts';
import type { ResourceRegistry } from '../../resources/resource-registry.ts';
import { SYSTEM_FIELDS } from '../../resources/resource.ts';
import type { KeyPermissions } from '../principal.ts';
import { isRecord } from '../../tools/is-record.ts';

/** JSON Pointer escaping (RFC 6901) so odd member names still point at the right place. */
const escapePointer = (token: string): string => token.replace(/~/g, '~0').replace(/\//g, '~1');

export function validateKeyPermissions(
  value: unknown,
  registry: Pick<ResourceRegistry, 'find'>,
  pointer = '/data/attributes/permissions',
): KeyPermissions {
  const issues: ErrorIssue[] = [];
  const problem = (at: string, detail: string): void => {
    issues.push({ detail, pointer: at });
  };
  const permissions: KeyPermissions = {};
  if (!isRecord(value)) {
    throw new ApiError('INVALID_PERMISSIONS', { detail: 'permissions must be an object of resource → action → field names', pointer });
  }
  for (const [resourceName, actions] of Object.entries(value)) {
    const resourcePointer = `${pointer}/${escapePointer(resourceName)}`;
    const resource = registry.find(resourceName);
    if (!resource) {
      problem(resourcePointer, `Unknown resource '${resourceName}'`);
      continue;
    }
    if (!isRecord(actions)) {
      problem(resourcePointer, `permissions.${resourceName} must be an object of action → field names`);
      continue;
    }
    const known = new Set<string>([...resource.fieldNames, ...SYSTEM_FIELDS, '*']);
    const granted: Partial<Record<Action, string[]>> = {};
    for (const [action, fields] of Object.entries(actions)) {
      const actionPointer = `${resourcePointer}/${escapePointer(action)}`;
      if (!(ACTIONS as readonly string[]).includes(action)) {
        problem(actionPointer, `Unknown action '${action}': use ${ACTIONS.join(', ')}`);
        continue;
      }
      if (!Array.isArray(fields)) {
        problem(actionPointer, `permissions.${resourceName}.${action} must be an array of field names ("*" for all)`);
        continue;
      }
      const names: string[] = [];
      fields.forEach((field: unknown, index) => {
        if (typeof field !== 'string') problem(`${actionPointer}/${index}`, 'Field names must be strings');
        else if (!known.has(field)) problem(`${actionPointer}/${index}`, `Resource '${resourceName}' has no field '${field}'`);
        else if (!names.includes(field)) names.push(field);
      });
      granted[action as Action] = names;
    }
    permissions[resourceName] = granted;
  }
  if (issues.length > 0) throw new ApiError('INVALID_PERMISSIONS', issues);
  return permissions;
}

// Key permissions (spec 2.2, docs/roles.md): `{ "<resource>": { "<action>": ["field", …] | ["*"] } }`.
// Each problem names its place in the body that holds them (`permissions/posts/read/1`), with the code
// INVALID_PERMISSIONS; the HTTP layer makes that place a pointer into the request's document.
import { ACTIONS, type Action } from '../../config/config-types.ts';
import type { ErrorIssue } from '../../errors/api-error.ts';
import type { ResourceRegistry } from '../../resources/resource-registry.ts';
import { SYSTEM_FIELDS } from '../../resources/resource.ts';
import type { KeyPermissions } from '../../model/principal.ts';
import { isRecord } from '../../tools/is-record.ts';

/** JSON Pointer escaping (RFC 6901) so odd member names still point at the right place. */
const escapePointer = (token: string): string => token.replace(/~/g, '~0').replace(/\//g, '~1');

/** The permissions `value` grants, and every problem with it (none: the permissions are usable). */
export function readKeyPermissions(
  value: unknown,
  registry: Pick<ResourceRegistry, 'find'>,
  place = 'permissions',
): { permissions: KeyPermissions; issues: ErrorIssue[] } {
  const issues: ErrorIssue[] = [];
  const problem = (at: string, detail: string): void => {
    issues.push({ detail, field: at, code: 'INVALID_PERMISSIONS' });
  };
  const permissions: KeyPermissions = {};
  if (!isRecord(value)) {
    problem(place, 'permissions must be an object of resource → action → field names');
    return { permissions, issues };
  }
  for (const [resourceName, actions] of Object.entries(value)) {
    const resourcePointer = `${place}/${escapePointer(resourceName)}`;
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
        else if (!known.has(field))
          problem(`${actionPointer}/${index}`, `Resource '${resourceName}' has no field '${field}'`);
        else if (!names.includes(field)) names.push(field);
      });
      granted[action as Action] = names;
    }
    permissions[resourceName] = granted;
  }
  return { permissions, issues };
}

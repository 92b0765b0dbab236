// What a key principal may do, per enabled resource and action, with the fields each allowed action may
// use (none for delete): the same decisions the resource endpoints make, so a client such as the console
// offers only the forms and buttons the API will accept. Row filters still apply per record.
import type { KeyPermissions, Principal } from '../auth/principal.ts';
import { ACTIONS } from '../config/config-types.ts';
import { ApiError } from '../errors/api-error.ts';
import type { Resource } from '../resources/resource.ts';
import { resolveAccess } from './resolve-access.ts';

export function accessSummary(resources: readonly Resource[], principal: Principal): KeyPermissions {
  const summary: KeyPermissions = {};
  for (const resource of resources) {
    for (const action of ACTIONS) {
      let fields: string[];
      try {
        // A delete shows no fields, but the caller must still be allowed it.
        const { fields: allowed } = resolveAccess(resource, principal, action);
        fields = action === 'delete' ? [] : [...allowed];
      } catch (error) {
        // Refused (the role or the key's scopes): the action is left out.
        if (error instanceof ApiError) continue;
        throw error;
      }
      (summary[resource.name] ??= {})[action] = fields;
    }
  }
  return summary;
}

// What a key principal may do, per enabled resource and action, with the fields each allowed action may
// use (none for delete): the same decisions the resource endpoints make, so a client such as the console
// offers only the forms and buttons the API will accept. Row filters still apply per record.
import type { KeyPermissions, Principal } from '../model/principal.ts';
import { ACTIONS } from '../config/config-types.ts';
import type { Resource } from '../resources/resource.ts';
import { grantIfAllowed } from './resolve-access.ts';

export function accessSummary(resources: readonly Resource[], principal: Principal): KeyPermissions {
  const summary: KeyPermissions = {};
  for (const resource of resources) {
    for (const action of ACTIONS) {
      const grant = grantIfAllowed(resource, principal, action);
      // Refused (the role or the key's scopes): the action is left out.
      if (grant === undefined) continue;
      // A delete shows no fields, but the caller must still be allowed it.
      const fields = action === 'delete' ? [] : [...grant.fields];
      (summary[resource.name] ??= {})[action] = fields;
    }
  }
  return summary;
}

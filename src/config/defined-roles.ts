// The roles a configuration defines: the `roles:` list when it is declared, every role named under any
// resource's `permissions`, and `auth.defaultRole`. Users may be given only these.
import type { SvcConfig } from './config-types.ts';

type RoleSources = Pick<SvcConfig, 'auth' | 'roles'>;

/** Per config, per resources object: the set is rebuilt only when the resources are replaced. */
const CACHE = new WeakMap<RoleSources, WeakMap<object, ReadonlySet<string>>>();

export function definedRoles(config: RoleSources, resources: SvcConfig['resources']): ReadonlySet<string> {
  let byResources = CACHE.get(config);
  if (!byResources) {
    byResources = new WeakMap();
    CACHE.set(config, byResources);
  }
  let roles = byResources.get(resources);
  if (!roles) {
    const names = new Set<string>(config.roles ?? []);
    names.add(config.auth.defaultRole);
    for (const definition of Object.values(resources))
      for (const role of Object.keys(definition.permissions ?? {})) names.add(role);
    roles = names;
    byResources.set(resources, roles);
  }
  return roles;
}

/** "editor, user": for messages that say which roles exist. */
export function listRoles(roles: ReadonlySet<string>): string {
  return [...roles].sort().join(', ') || 'none';
}

// The roles of a configuration as a whole. With a top-level `roles:` list, every role under a resource's
// `permissions` and `auth.defaultRole` must be declared in it (problems). Without one, a role named under
// a single resource while other roles are named under several is likely a typo (warnings).
import { joinPath, type ConfigProblem } from './config-problem.ts';
import { isRecord } from '../tools/is-record.ts';
import { roleNameProblem } from './role-name.ts';

/** Where each role is named: role → paths of `resources.<r>.permissions.<role>`. */
function rolePlaces(resources: unknown): Map<string, string[]> {
  const places = new Map<string, string[]>();
  if (!isRecord(resources)) return places;
  for (const [name, definition] of Object.entries(resources)) {
    if (!isRecord(definition) || !isRecord(definition.permissions)) continue;
    for (const role of Object.keys(definition.permissions)) {
      const paths = places.get(role) ?? [];
      paths.push(joinPath('resources', name, 'permissions', role));
      places.set(role, paths);
    }
  }
  return places;
}

function defaultRoleOf(config: Record<string, unknown>): string | undefined {
  return isRecord(config.auth) && typeof config.auth.defaultRole === 'string' ? config.auth.defaultRole : undefined;
}

/** Problems: each declared role must be a usable name; with `roles:`, no undeclared role anywhere. */
export function checkRoles(config: Record<string, unknown>): ConfigProblem[] {
  if (!Array.isArray(config.roles)) return [];
  const problems: ConfigProblem[] = [];
  const declared = new Set<string>();
  config.roles.forEach((role: unknown, i) => {
    const problem = roleNameProblem(role);
    if (problem) problems.push({ path: joinPath('roles', i), message: problem });
    else declared.add(role as string);
  });
  const list = [...declared].join(', ') || 'none';
  for (const [role, paths] of rolePlaces(config.resources)) {
    if (declared.has(role)) continue;
    for (const path of paths)
      problems.push({ path, message: `role "${role}" is not declared in roles (declared: ${list})` });
  }
  const defaultRole = defaultRoleOf(config);
  if (defaultRole !== undefined && !declared.has(defaultRole)) {
    problems.push({
      path: 'auth.defaultRole',
      message: `role "${defaultRole}" is not declared in roles (declared: ${list})`,
    });
  }
  return problems;
}

/** Edit distance, for "did you mean"; names are short (at most 100 characters). */
function distance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length]!;
}

/**
 * Warnings, when no `roles:` list is declared: a role named under exactly one resource while some other
 * role is named under several. The default role is named in `auth`, so it is never suspected.
 */
export function roleWarnings(config: Record<string, unknown>): ConfigProblem[] {
  if (Array.isArray(config.roles)) return [];
  const places = rolePlaces(config.resources);
  const widespread = [...places].filter(([, paths]) => paths.length > 1).map(([role]) => role);
  if (widespread.length === 0) return [];
  const defaultRole = defaultRoleOf(config);
  const warnings: ConfigProblem[] = [];
  for (const [role, paths] of places) {
    if (paths.length !== 1 || role === defaultRole) continue;
    const near = [...places.keys()]
      .filter((other) => other !== role && distance(other, role) <= 2)
      .sort((a, b) => distance(a, role) - distance(b, role));
    const guess = near.length > 0 ? ` (did you mean "${near[0]}"?)` : '';
    warnings.push({
      path: paths[0]!,
      message:
        `role "${role}" is named under no other resource, while ${widespread.join(', ')} ${widespread.length === 1 ? 'is' : 'are'} named under several: a typo?${guess} ` +
        'Declare the roles in a top-level roles: list to have undeclared ones refused',
    });
  }
  return warnings;
}

// Environment variables that override single settings of the file (docs/configuration.md), applied after
// `${…}` interpolation so that they win over it.
import { toPointer } from './config-problem.ts';
import { isRecord } from '../tools/is-record.ts';

export const ENV_OVERRIDES: readonly { variable: string; path: readonly string[] }[] = [
  { variable: 'PORT', path: ['server', 'port'] },
  { variable: 'HOST', path: ['server', 'host'] },
  { variable: 'DATABASE_URL', path: ['database', 'url'] },
  { variable: 'REDIS_URL', path: ['redis', 'url'] },
  { variable: 'SVC_ADMIN_TOKEN', path: ['adminToken'] },
];

export interface AppliedOverride {
  variable: string;
  /** JSON pointer of the overridden setting. */
  pointer: string;
  /** Dotted path of the overridden setting. */
  path: string;
}

/**
 * Sets each override whose variable is non-empty, on a copy of `tree`. The values stay strings
 * (PORT=8080 is "8080"); validation reads them as numbers where the schema wants one.
 * A setting whose parent is not an object is left for validation to report.
 */
export function applyEnvOverrides(
  tree: unknown,
  env: NodeJS.ProcessEnv,
): { value: unknown; applied: AppliedOverride[] } {
  const value: unknown = structuredClone(tree);
  const applied: AppliedOverride[] = [];
  if (!isRecord(value)) return { value, applied };
  for (const { variable, path } of ENV_OVERRIDES) {
    const setting = env[variable];
    if (setting === undefined || setting === '') continue;
    let node: Record<string, unknown> = value;
    let reachable = true;
    for (const key of path.slice(0, -1)) {
      if (node[key] === undefined || node[key] === null) node[key] = {};
      const next = node[key];
      if (!isRecord(next)) {
        reachable = false;
        break;
      }
      node = next;
    }
    if (!reachable) continue;
    node[path[path.length - 1] as string] = setting;
    applied.push({ variable, pointer: toPointer(path), path: path.join('.') });
  }
  return { value, applied };
}

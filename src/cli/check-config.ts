// `svc check`: validates the config the service would start with and says every problem by path, then
// what is valid but likely a mistake (warnings, which do not fail the check).
import { ConfigError, findConfigFile } from '../config/load-config.ts';
import { formatProblem } from '../config/config-problem.ts';
import { roleWarnings } from '../config/check-roles.ts';
import { fieldNameWarnings } from '../config/check-field-names.ts';
import { loadConfig } from '../resources/config-loader.ts';

export interface ConfigCheck {
  ok: boolean;
  /** What to print, one line each: a summary, then each problem as `path: message`. */
  lines: string[];
}

export async function checkConfigFile(
  file?: string,
  env: NodeJS.ProcessEnv = process.env,
  cwd: string = process.cwd(),
): Promise<ConfigCheck> {
  const source = await findConfigFile({ file, env, cwd });
  const label = source.origin === 'bundled' ? `${source.file} (bundled example)` : source.file;
  try {
    const config = await loadConfig({ file: source.file, env, cwd });
    const names = Object.keys(config.resources);
    const resources = names.length === 1 ? '1 resource' : `${names.length} resources`;
    const warnings = [...roleWarnings(config as unknown as Record<string, unknown>), ...fieldNameWarnings(config)];
    const warned = warnings.length === 0 ? '' : warnings.length === 1 ? ', 1 warning' : `, ${warnings.length} warnings`;
    return {
      ok: true,
      lines: [
        `${label}: valid, ${resources}${names.length > 0 ? ` (${names.join(', ')})` : ''}${warned}`,
        ...warnings.map((warning) => `warning: ${formatProblem(warning)}`),
      ],
    };
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    const count = error.problems.length === 1 ? '1 problem' : `${error.problems.length} problems`;
    return { ok: false, lines: [`${label}: ${count}`, ...error.problems.map(formatProblem)] };
  }
}

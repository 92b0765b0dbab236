// Finds, reads, interpolates, overrides and validates the config (docs/configuration.md): the file named by
// the caller, else SVC_CONFIG, else ./svc.config.yaml, else the bundled example. YAML or JSON.
import { access, readFile } from 'node:fs/promises';
import { isAbsolute, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseDocument } from 'yaml';
import type { SvcConfig } from './config-types.ts';
import { applyEnvOverrides } from './apply-env-overrides.ts';
import { formatProblem, sortProblemsByDocument, type ConfigProblem } from './config-problem.ts';
import { deepFreeze } from '../tools/deep-freeze.ts';
import { interpolateEnv } from './interpolate-env.ts';
import type { DefinitionChecks } from './definition-checks.ts';
import { validateConfigWith } from './validate-config.ts';

/** Thrown when a config cannot be used: carries every problem, and says them one per line. */
export class ConfigError extends Error {
  readonly problems: readonly ConfigProblem[];
  /** The file the problems are in, when there is one. */
  readonly file: string | undefined;

  constructor(problems: readonly ConfigProblem[], file?: string) {
    const count = problems.length === 1 ? '1 problem' : `${problems.length} problems`;
    super([`invalid configuration${file ? ` in ${file}` : ''} (${count}):`, ...problems.map(formatProblem)].join('\n'));
    this.name = 'ConfigError';
    this.problems = problems;
    this.file = file;
  }
}

export type { ConfigProblem } from './config-problem.ts';

/** The example served by `npm start` when no config is found: src/config → package root. */
export const BUNDLED_CONFIG_FILE = fileURLToPath(new URL('../../examples/blog.yaml', import.meta.url));

export const DEFAULT_CONFIG_FILE = 'svc.config.yaml';

export interface LoadConfigOptions {
  /** `--config`; relative to `cwd`. */
  file?: string;
  /** Default: process.env. */
  env?: NodeJS.ProcessEnv;
  /** Default: process.cwd(). */
  cwd?: string;
}

export interface ConfigSource {
  file: string;
  /** Why this file: named by the caller, by SVC_CONFIG, found in the working directory, or the fallback. */
  origin: 'option' | 'SVC_CONFIG' | 'cwd' | 'bundled';
}

export async function findConfigFile(options: LoadConfigOptions = {}): Promise<ConfigSource> {
  const cwd = options.cwd ?? process.cwd();
  const env = options.env ?? process.env;
  if (options.file) return { file: resolve(cwd, options.file), origin: 'option' };
  if (env.SVC_CONFIG) return { file: resolve(cwd, env.SVC_CONFIG), origin: 'SVC_CONFIG' };
  const local = resolve(cwd, DEFAULT_CONFIG_FILE);
  try {
    await access(local);
    return { file: local, origin: 'cwd' };
  } catch {
    return { file: BUNDLED_CONFIG_FILE, origin: 'bundled' };
  }
}

/** Loads the config, checking its resource definitions with `definitions` (src/resources/config-loader.ts binds them). */
export async function loadConfigWith(
  definitions: DefinitionChecks,
  options: LoadConfigOptions = {},
): Promise<SvcConfig> {
  const { file } = await findConfigFile(options);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (error as Error).message;
    throw new ConfigError([{ path: '', message: `cannot read ${file}: ${reason}` }], file);
  }
  const raw = parseConfigText(text, file);
  return buildConfig(definitions, raw, options.env ?? process.env, options.cwd ?? process.cwd(), file);
}

/**
 * A config from an already parsed object, as `loadConfigWith` makes it from a file: interpolation,
 * environment overrides, validation, defaults, frozen. `env` defaults to none at all (not
 * process.env), so that a test's config does not depend on the shell that runs it.
 */
export function loadConfigFromObjectWith(
  definitions: DefinitionChecks,
  raw: unknown,
  env: NodeJS.ProcessEnv = {},
  options: { cwd?: string } = {},
): SvcConfig {
  return buildConfig(definitions, raw, env, options.cwd ?? process.cwd());
}

/** YAML or JSON (JSON is YAML): the parsed tree, or a ConfigError naming the line of each syntax error. */
export function parseConfigText(text: string, file?: string): unknown {
  const document = parseDocument(text, { prettyErrors: true, uniqueKeys: true });
  if (document.errors.length > 0) {
    // prettyErrors puts "at line L, column C:" then the offending lines; keep the first line.
    const problems = document.errors.map((error) => ({
      path: '',
      message: `syntax error: ${(error.message.split('\n')[0] ?? '').replace(/:$/, '')}`,
    }));
    throw new ConfigError(problems, file);
  }
  return document.toJS({ maxAliasCount: 100 });
}

function buildConfig(
  definitions: DefinitionChecks,
  raw: unknown,
  env: NodeJS.ProcessEnv,
  cwd: string,
  file?: string,
): SvcConfig {
  const interpolation = interpolateEnv(raw, env);
  const overridden = applyEnvOverrides(interpolation.value, env);
  const coercible = new Set(interpolation.interpolated);
  for (const override of overridden.applied) coercible.add(override.pointer);

  const result = validateConfigWith(definitions, overridden.value, { coercible });
  // A value whose variable was missing or malformed is reported once, for that reason.
  const interpolationPaths = new Set(interpolation.problems.map((p) => p.path));
  const problems: ConfigProblem[] = sortProblemsByDocument(
    [
      ...interpolation.problems,
      ...result.problems
        .filter((p) => !interpolationPaths.has(p.path))
        .map((p) => {
          const override = overridden.applied.find((o) => o.path === p.path);
          return override ? { ...p, message: `${p.message} (from the environment variable ${override.variable})` } : p;
        }),
    ],
    overridden.value,
  );
  if (problems.length > 0 || !result.config) throw new ConfigError(problems, file);
  return resolveLocalPaths(result.config, cwd);
}

/**
 * Relative `sqlite:` paths and `dataDir` are relative to the working directory, not to the config
 * file: `npm start` in a project keeps its data in ./.svc whichever config it runs, and the bundled
 * example never writes beside the package. They are made absolute here, once.
 */
function resolveLocalPaths(config: SvcConfig, cwd: string): SvcConfig {
  const { url } = config.database;
  const path = url.startsWith('sqlite:') ? url.slice('sqlite:'.length) : undefined;
  const isFile =
    path !== undefined && path !== '' && path !== ':memory:' && !path.startsWith('file:') && !isAbsolute(path);
  return deepFreeze({
    ...config,
    database: { ...config.database, url: isFile ? `sqlite:${resolve(cwd, path)}` : url },
    dataDir: resolve(cwd, config.dataDir),
  });
}

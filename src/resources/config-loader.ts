// The config as the service uses it: settings loaded and checked by config/, resource definitions
// checked by the rules that live with the field types. Every caller that loads a whole config uses these.
import type { SvcConfig } from '../config/config-types.ts';
import { loadConfigFromObjectWith, loadConfigWith, type LoadConfigOptions } from '../config/load-config.ts';
import { validateConfigWith, type ValidateConfigOptions, type ValidatedConfig } from '../config/validate-config.ts';
import { RESOURCE_DEFINITION_CHECKS } from './checks/check-resources.ts';

export function validateConfig(raw: unknown, options: ValidateConfigOptions = {}): ValidatedConfig {
  return validateConfigWith(RESOURCE_DEFINITION_CHECKS, raw, options);
}

export function loadConfig(options: LoadConfigOptions = {}): Promise<SvcConfig> {
  return loadConfigWith(RESOURCE_DEFINITION_CHECKS, options);
}

/** See loadConfigFromObjectWith: `env` defaults to none at all, so a test's config does not depend on the shell. */
export function loadConfigFromObject(
  raw: unknown,
  env: NodeJS.ProcessEnv = {},
  options: { cwd?: string } = {},
): SvcConfig {
  return loadConfigFromObjectWith(RESOURCE_DEFINITION_CHECKS, raw, env, options);
}

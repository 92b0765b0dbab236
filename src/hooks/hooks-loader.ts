// Which hooks a config brings: the file it names, imported afresh and checked against its resources.
// Start and reload (SIGHUP, POST /admin/reload) use it; a file that fails is refused with its error
// before anything changes, so the hooks and definitions in force stay.
import type { SvcConfig } from '../config/config-types.ts';
import type { HookRunner } from './hook-runner.ts';
import type { HookSet } from './hook-set.ts';
import { hooksFileOf, importHooksFile } from './load-hooks-file.ts';

/**
 * The hooks `config` names (relative to `configFile`), checked against its resources; undefined when
 * it names none (the hooks in force stay: createSvc's object, or none).
 */
export async function loadConfiguredHooks(
  runner: HookRunner,
  config: SvcConfig,
  configFile: string | undefined,
): Promise<{ set: HookSet; file: string } | undefined> {
  const file = hooksFileOf(config, configFile);
  if (file === undefined) return undefined;
  const definition = await importHooksFile(file);
  return { set: runner.compile(definition, Object.keys(config.resources)), file };
}

// Imports a hooks file (`hooks:` in the config, relative to the config file) afresh: Node keeps every
// imported module for the life of the process, so each load asks for a new URL (a query string) and a
// reload runs the file as it is now. Modules the file imports itself stay as first loaded.
import { dirname, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { SvcConfig } from '../config/config-types.ts';

/** Why a hooks file could not be used, with the file's path and the cause. */
export class HooksFileError extends Error {
  readonly file: string;
  constructor(file: string, message: string, cause?: unknown) {
    super(`${file}: ${message}`, cause === undefined ? {} : { cause });
    this.name = 'HooksFileError';
    this.file = file;
  }
}

let loads = 0;

/** The hooks file a config names, resolved against the config file's folder (else the working directory); undefined when it names none. */
export function hooksFileOf(config: SvcConfig, configFile: string | undefined): string | undefined {
  if (config.hooks === undefined || config.hooks === '') return undefined;
  return resolve(configFile === undefined ? process.cwd() : dirname(configFile), config.hooks);
}

/** The file's default export; HooksFileError when it cannot be imported or exports nothing. */
export async function importHooksFile(file: string): Promise<unknown> {
  const url = pathToFileURL(file);
  url.search = `?load=${++loads}`;
  let namespace: Record<string, unknown>;
  try {
    namespace = (await import(url.href)) as Record<string, unknown>;
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new HooksFileError(file, `cannot be loaded: ${reason}`, error);
  }
  if (namespace.default === undefined)
    throw new HooksFileError(file, 'has no default export: export default defineHooks({ ... })');
  return namespace.default;
}

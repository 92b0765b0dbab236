// `createSvc({ config | configPath, hooks })`: svc as a library (docs/hooks.md). The same service
// `svc start` runs, built from a config object or file plus hooks, ready but not listening: the
// caller listens (`app.listen`), injects requests (`app.inject`) or mounts it, and closes it.
import { resolve } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { buildApp } from './server.ts';
import type { SvcConfig } from './config/config-types.ts';
import { loadConfig, loadConfigFromObject } from './resources/config-loader.ts';
import type { ServiceLoggerOptions } from './logging/service-logger.ts';
import type { HooksDefinition, Records } from './hooks/hook-types.ts';

export interface CreateSvcOptions {
  /** The config as an object, in the config file's shape; checked as a file is. */
  config?: unknown;
  /** A config file (YAML or JSON); its `hooks:` file is loaded unless `hooks` is given. */
  configPath?: string;
  /** The hooks and routes, in place of the config's hooks file. */
  hooks?: HooksDefinition;
  /** Environment for `${VAR}` in the config and the SVC_* overrides (default: none for `config`, process.env for `configPath`). */
  env?: NodeJS.ProcessEnv;
  /** Log lines (pino options; default: none). */
  logger?: ServiceLoggerOptions;
  /** Start the event dispatcher, webhook worker, cluster signals and retention job (default true). */
  startWorkers?: boolean;
}

export interface Svc {
  /** svc's Fastify instance, ready: `listen`, `inject`, or use its `server`. */
  readonly app: FastifyInstance;
  /** The records, as the system: `records('posts', { as: 'system' })` (outside a request there is no caller). */
  readonly records: Records;
  /** The validated config in force. */
  readonly config: SvcConfig;
  /** Stops the workers and the server and closes the database. */
  close(): Promise<void>;
}

export async function createSvc(options: CreateSvcOptions): Promise<Svc> {
  if ((options.config === undefined) === (options.configPath === undefined))
    throw new TypeError('createSvc: give one of config and configPath');
  let config: SvcConfig;
  let configFile: string | undefined;
  if (options.configPath !== undefined) {
    config = await loadConfig({ file: options.configPath, ...(options.env ? { env: options.env } : {}) });
    configFile = resolve(options.configPath);
  } else {
    config = loadConfigFromObject(options.config, options.env ?? {});
  }
  const { app, ctx } = await buildApp({
    config,
    ...(configFile !== undefined ? { configFile } : {}),
    ...(options.hooks !== undefined ? { hooks: options.hooks } : {}),
    ...(options.logger !== undefined ? { logger: options.logger } : {}),
    ...(options.startWorkers !== undefined ? { startWorkers: options.startWorkers } : {}),
  });
  await app.ready();
  let closing: Promise<void> | undefined;
  return {
    app,
    config,
    records: ctx.hooks.records(undefined),
    close: () => (closing ??= app.close()),
  };
}
